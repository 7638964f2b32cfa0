#!/usr/bin/python3
"""Where a helped round trip's time goes (issue 34), from a perf trace.

  trace_rr.py LOGS_DIR [IMPL...]

Reads LOGS_DIR/perf-IMPL-trace.txt.gz (perf script of the scheduler's
switches and wake-ups and every system call's entry and exit, on every
CPU, during a cthbench-load rr run: tests/bench/inside.sh perf_rr) and
LOGS_DIR/perf-IMPL-pids.txt (the helper's processes), and prints, per
round trip, for each party (the load client, the load server, the
helper's threads, everything else, and each CPU's idle time):

  run     time on a CPU
  wait    time between being woken and running (the wake-up's cost)
  wakes   wake-ups, and how many of them crossed to the other CPU
  calls   system calls, and the time spent inside them

The round trips are the client's write() calls inside the trace.  The
load client and server are both cthbench-load: the client is the one
started last (the higher pid).
"""
import collections
import gzip
import re
import sys

LINE = re.compile(r'^\s*(.+?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+([\w:]+):\s*(.*)$')
KV = re.compile(r'(\w+)=(\S+)')
SYS = re.compile(r'NR (\d+)')
RET = re.compile(r'= (-?\d+)')
SYSCALLS = {0: 'read', 1: 'write', 7: 'poll', 44: 'sendto', 45: 'recvfrom',
            46: 'sendmsg', 47: 'recvmsg', 202: 'futex', 232: 'epoll_wait',
            270: 'pselect6', 42: 'connect', 271: 'ppoll', 281: 'epoll_pwait', 299: 'recvmmsg',
            307: 'sendmmsg', 228: 'clock_gettime', 35: 'nanosleep', 230: 'clock_nanosleep',
            20: 'writev', 19: 'readv', 54: 'setsockopt'}


class Task:
    """One thread's totals over the trace; serve holds the spans from a
    queue receive's return (recvmmsg) to the next verdict (sendto or
    sendmsg): how long a packet waited in the helper."""
    def __init__(self):
        self.comm = '?'
        self.pid = 0
        self.run = 0.0
        self.wait = 0.0
        self.wakes = 0
        self.xcpu = 0
        self.on_since = None
        self.woken_at = None
        self.waker_cpu = None
        self.sys_in = None
        self.sys_nr = None
        self.calls = collections.Counter()
        self.call_time = collections.Counter()
        self.serve = []
        self.got_at = None


def parse(path):
    tasks = collections.defaultdict(Task)
    t0 = t1 = None
    cpu_on = {}      # cpu -> (tid, since)
    with gzip.open(path, 'rt', errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            comm, pid, tid, cpu, ts, ev, rest = m.groups()
            pid, tid, cpu, ts = int(pid), int(tid), int(cpu), float(ts)
            t0 = ts if t0 is None else t0
            t1 = ts
            if tid:
                tk = tasks[tid]
                tk.comm, tk.pid = comm, pid
            if ev == 'raw_syscalls:sys_enter' and tid:
                s = SYS.search(rest)
                tk.sys_in, tk.sys_nr = ts, int(s.group(1)) if s else -1
                if tk.sys_nr in (44, 46) and tk.got_at is not None:
                    tk.serve.append(ts - tk.got_at)
                    tk.got_at = None
            elif ev == 'raw_syscalls:sys_exit' and tid:
                if tk.sys_in is not None:
                    tk.calls[tk.sys_nr] += 1
                    tk.call_time[tk.sys_nr] += ts - tk.sys_in
                    ret = RET.search(rest)
                    if tk.sys_nr == 299 and ret and int(ret.group(1)) > 0:
                        tk.got_at = ts
                tk.sys_in = None
            elif ev == 'sched:sched_waking':
                kv = dict(KV.findall(rest))
                w = tasks[int(kv.get('pid', -1))]
                if w.woken_at is None:
                    w.woken_at, w.waker_cpu = ts, cpu
            elif ev == 'sched:sched_wakeup':
                kv = dict(KV.findall(rest))
                w = tasks[int(kv.get('pid', -1))]
                if w.woken_at is None:
                    w.woken_at, w.waker_cpu = ts, cpu
                w.wakes += 1
                if int(kv.get('target_cpu', cpu)) != w.waker_cpu:
                    w.xcpu += 1
            elif ev == 'sched:sched_switch':
                kv = dict(KV.findall(rest.replace(' ==> ', ' ')))
                prev = int(kv.get('prev_pid', -1))
                nxt = int(kv.get('next_pid', -1))
                if cpu in cpu_on:
                    ptid, since = cpu_on[cpu]
                    tasks[('idle', cpu) if ptid == 0 else ptid].run += ts - since
                elif prev >= 0:
                    pass
                cpu_on[cpu] = (nxt, ts)
                n = tasks[('idle', cpu) if nxt == 0 else nxt]
                if nxt == 0:
                    n.comm = 'idle cpu%d' % cpu
                else:
                    n.comm = kv.get('next_comm', n.comm)
                if n.woken_at is not None:
                    n.wait += ts - n.woken_at
                    n.woken_at = None
    for cpu, (tid, since) in cpu_on.items():
        tasks[('idle', cpu) if tid == 0 else tid].run += t1 - since
    return tasks, (t1 - t0) if t0 is not None else 0.0


def group(tasks, helper_pids):
    loads = sorted({tk.pid for tk in tasks.values() if tk.comm == 'cthbench-load'})
    client = loads[-1] if loads else None
    # an FTP session load (BENCH_PROFILE_LOAD=ftp): the client is the
    # Python process that connects (twice a session), the server the other
    conns = collections.Counter()
    for tk in tasks.values():
        if tk.comm.startswith('python'):
            conns[tk.pid] += tk.calls[42]
    ftp_client = conns.most_common(1)[0][0] if conns and not loads else None
    groups = collections.OrderedDict()
    for key, tk in tasks.items():
        if isinstance(key, tuple):
            g = tk.comm
        elif tk.comm == 'cthbench-load':
            g = 'load client' if tk.pid == client else 'load server'
        elif ftp_client is not None and tk.comm.startswith('python'):
            g = 'ftp client' if tk.pid == ftp_client else 'ftp server'
        elif tk.pid in helper_pids:
            g = 'helper %s' % tk.comm
        else:
            g = 'other'
        groups.setdefault(g, []).append(tk)
    return groups, client


def report(logs, impl):
    try:
        with open('%s/perf-%s-pids.txt' % (logs, impl)) as f:
            helper_pids = {int(x) for x in f.read().split()}
    except OSError:
        helper_pids = set()
    helper_pids.discard(1)
    tasks, dur = parse('%s/perf-%s-trace.txt.gz' % (logs, impl))
    groups, client = group(tasks, helper_pids)
    unit = 'round trip'
    rts = sum(tk.calls[1] for tk in groups.get('load client', []))
    if 'ftp client' in groups:
        unit = 'FTP session'
        rts = sum(tk.calls[42] for tk in groups['ftp client']) // 2
    print('## %s: %d %ss in %.2f s of trace (%.0f us each; columns per %s)' %
          (impl, rts, unit, dur, dur * 1e6 / rts if rts else 0, unit))
    if not rts:
        return
    serve = sorted(x for g in groups if g.startswith('helper') for t in groups[g] for x in t.serve)
    if serve:
        print('helper: %d packets served (receive to verdict), median %.0f us, 90th %.0f, '
              'longest %s us' % (len(serve), serve[len(serve) // 2] * 1e6,
                                 serve[int(len(serve) * 0.9)] * 1e6,
                                 ', '.join('%.0f' % (x * 1e6) for x in serve[-5:])))
        print()
    print('| party | run us/rt | wait us/rt | wakes/rt (other CPU) | calls/rt | in calls us/rt | top calls (count/rt, us each) |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | --- |')
    order = sorted(groups, key=lambda g: (g.startswith('idle'), g == 'other', g))
    for g in order:
        ts = groups[g]
        run = sum(t.run for t in ts) * 1e6 / rts
        wait = sum(t.wait for t in ts) * 1e6 / rts
        wakes = sum(t.wakes for t in ts) / rts
        xcpu = sum(t.xcpu for t in ts) / rts
        calls = collections.Counter()
        ctime = collections.Counter()
        for t in ts:
            calls.update(t.calls)
            ctime.update(t.call_time)
        ncalls = sum(calls.values()) / rts
        tcalls = sum(ctime.values()) * 1e6 / rts
        top = ', '.join('%s %.2f/%.0f' % (SYSCALLS.get(nr, nr), c / rts, ctime[nr] * 1e6 / c)
                        for nr, c in calls.most_common(4))
        if run < 1 and ncalls < 0.01:
            continue
        print('| %s | %.0f | %.0f | %.2f (%.2f) | %.2f | %.0f | %s |' %
              (g, run, wait, wakes, xcpu, ncalls, tcalls, top))
    print()


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    logs = sys.argv[1]
    impls = sys.argv[2:] or ['none', 'floor', 'cthelperd-inproc', 'cthelperd']
    for impl in impls:
        try:
            report(logs, impl)
        except OSError as e:
            print('## %s: no trace (%s)\n' % (impl, e))
    return 0


if __name__ == '__main__':
    sys.exit(main())
