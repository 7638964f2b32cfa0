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
SYSCALLS = {0: 'read', 1: 'write', 7: 'poll', 44: 'sendto', 45: 'recvfrom',
            46: 'sendmsg', 47: 'recvmsg', 202: 'futex', 232: 'epoll_wait',
            270: 'pselect6', 271: 'ppoll', 281: 'epoll_pwait', 299: 'recvmmsg',
            307: 'sendmmsg', 228: 'clock_gettime', 35: 'nanosleep', 230: 'clock_nanosleep',
            20: 'writev', 19: 'readv', 54: 'setsockopt'}


class Task:
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
            elif ev == 'raw_syscalls:sys_exit' and tid:
                if tk.sys_in is not None:
                    tk.calls[tk.sys_nr] += 1
                    tk.call_time[tk.sys_nr] += ts - tk.sys_in
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
    groups = collections.OrderedDict()
    for key, tk in tasks.items():
        if isinstance(key, tuple):
            g = tk.comm
        elif tk.comm == 'cthbench-load':
            g = 'load client' if tk.pid == client else 'load server'
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
    rts = sum(tk.calls[1] for tk in groups.get('load client', []))
    print('## %s: %d round trips in %.2f s of trace (%.0f us each)' %
          (impl, rts, dur, dur * 1e6 / rts if rts else 0))
    if not rts:
        return
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
