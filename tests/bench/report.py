#!/usr/bin/python3
"""Turn tests/bench/inside.sh's raw measurements into the benchmark report.

  report.py RAW.tsv OUTDIR

RAW.tsv: MEASURE <tab> IMPL <tab> REP <tab> VALUE [<tab> NOTE], one line
per measurement.  Writes OUTDIR/results.md (medians, the range of the
repetitions, ratios of cthelperd to conntrackd, the kernel and the floor,
and of the sandboxed daemon to the in-process one, each issue 17 target
and issue 32's aim met or missed by how much) and OUTDIR/results.png
(each throughput measure relative to the kernel's helper), and prints the
Markdown to stdout.  Only ratios inside one run mean anything: the VM is
emulated (TCG), and its absolute speed varies from run to run.
"""

import collections
import os
import statistics
import sys
import textwrap

# cthelperd: plugins sandboxed (the default); cthelperd-inproc: sandbox = no
IMPLS = ["none", "kernel", "conntrackd", "floor", "cthelperd", "cthelperd-inproc",
         "cthelperd-kmod"]
COLNAME = {"none": "no helper", "kernel": "kernel", "conntrackd": "conntrackd",
           "floor": "floor", "cthelperd": "cthelperd", "cthelperd-inproc": "cthelperd in-process",
           "cthelperd-kmod": "cthelperd+kmod"}
# key: (title, higher is better)
MEASURES = collections.OrderedDict([
    ("bulk_mbs", ("bulk MB/s through a helped connection", True)),
    ("rr_per_s", ("round trips/s on a helped connection", True)),
    ("rr_p50_us", ("round trip, median µs (two helped packets)", False)),
    ("rr_p99_us", ("round trip, 99th percentile µs", False)),
    ("ftp_sps", ("FTP sessions/s (PASV, RETR 4 KiB)", True)),
    ("ftp_failed", ("FTP sessions failed (per run)", False)),
    ("ftp_serial_sps", ("FTP sessions/s, one at a time (latency-bound)", True)),
    ("ftp_serial_failed", ("FTP sessions one at a time failed (per run)", False)),
    ("ftp_serial_p50_ms", ("FTP session one at a time, median ms", False)),
    ("ftp_serial_p99_ms", ("FTP session one at a time, 99th percentile ms", False)),
    ("ftp_serial_max_ms", ("FTP session one at a time, longest ms", False)),
    ("ftp_serial_vm_cpu_ms", ("VM CPU ms per FTP session one at a time (everything)", False)),
    ("ftp_serial_helper_cpu_ms", ("  of which the helper's processes", False)),
    ("ftp_serial_server_cpu_ms", ("  of which the FTP server", False)),
    ("ftp_serial_client_cpu_ms", ("  of which the FTP client", False)),
    ("ftp_serial_softirq_ms", ("  of which softirq (the kernel's packet path)", False)),
    ("ftp_queued_per_session", ("packets queued per FTP session", False)),
    ("ftp_cpu_ms_per_session", ("VM CPU ms per FTP session (everything)", False)),
    ("ftp_busy_cpus", ("VM busy CPUs during FTP sessions (of 2)", False)),
    ("sip_cps", ("SIP calls/s (INVITE+SDP, 200, ACK, BYE)", True)),
    ("sip_failed", ("SIP calls failed (per run)", False)),
    ("cpu_ms_per_kpkt", ("helper CPU ms per 1000 queued packets", False)),
    ("rss_kib", ("helper RSS (several processes: PSS), KiB", False)),
    ("rss_anon_kib", ("  of which anonymous, KiB", False)),
    ("rss_file_kib", ("  of which file-backed (libraries), KiB", False)),
    ("rss_shmem_kib", ("  of which shared memory (sandbox channels), KiB", False)),
    ("pss_kib", ("helper PSS, all its processes, KiB", False)),
    ("sys_daemon_per_rr", ("system calls per round trip: the daemon (strace -c)", False)),
    ("sys_sandbox_per_rr", ("system calls per round trip: spawner + sandboxes", False)),
    ("shard_bulk_mbs", ("2 connections, bulk MB/s total", True)),
    ("shard_rr_per_s", ("2 connections, round trips/s total", True)),
    ("shard_bulk_daemon_cpus", ("bulk: daemon CPU use, CPUs", False)),
    ("shard_bulk_busy_cpus", ("bulk: VM busy CPUs (of 2)", False)),
    ("shard_rr_daemon_cpus", ("round trips: daemon CPU use, CPUs", False)),
    ("shard_rr_busy_cpus", ("round trips: VM busy CPUs (of 2)", False)),
])
FTP_PARALLEL = 4   # tests/bench/inside.sh FTP_PAR
SIP_PARALLEL = 8   # tests/bench/inside.sh SIP_PAR
THROUGHPUT = ["bulk_mbs", "rr_per_s", "ftp_sps", "ftp_serial_sps", "sip_cps"]


def read_raw(path):
    """The values by (measure, implementation), the same by repetition,
    and the notes of the system call counts (their most frequent calls)."""
    data = collections.defaultdict(list)
    byrep = collections.defaultdict(dict)
    notes = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                continue
            try:
                data[(parts[0], parts[1])].append(float(parts[3]))
            except ValueError:
                continue
            byrep[(parts[0], parts[1])][parts[2]] = float(parts[3])
            if parts[0].startswith("sys_") and len(parts) > 4 and parts[4]:
                notes[(parts[0], parts[1])] = parts[4]
    return data, byrep, notes


def fmt(v):
    if v is None:
        return "—"
    if v >= 100 or v == int(v):
        return "%.0f" % v
    return "%.3g" % v


def cell(values):
    if not values:
        return "—"
    med = statistics.median(values)
    if len(values) > 1 and min(values) != max(values):
        return "%s (%s–%s)" % (fmt(med), fmt(min(values)), fmt(max(values)))
    return fmt(med)


def ratio(med, a, b):
    if a not in med or b not in med or not med[b]:
        return "—"
    return "%.2f×" % (med[a] / med[b])


def targets(meds):
    """Issue 17's targets: (what, value, goal, met)."""
    out = []

    def rel(measure, a, b, goal, label):
        m = meds.get(measure, {})
        if a in m and b in m and m[b]:
            r = m[a] / m[b]
            out.append((label, "%.2f×" % r, "≥ %.2f×" % goal, r >= goal))

    rel("rr_per_s", "cthelperd", "floor", 0.95, "round trips/s vs the floor")
    rel("bulk_mbs", "cthelperd", "floor", 0.95, "bulk MB/s vs the floor")
    rel("ftp_sps", "cthelperd", "conntrackd", 1.5, "FTP sessions/s vs conntrackd")
    rel("ftp_sps", "cthelperd", "kernel", 0.8, "FTP sessions/s vs the kernel")
    # issue 34: one session at a time, where latency is all there is
    rel("ftp_serial_sps", "cthelperd", "conntrackd", 1.5, "serial FTP sessions/s vs conntrackd")
    rel("ftp_serial_sps", "cthelperd", "kernel", 0.8, "serial FTP sessions/s vs the kernel")
    fails = meds.get("ftp_failed", {}).get("cthelperd")
    if fails is not None:
        out.append(("FTP sessions failed (cthelperd, median)", fmt(fails), "0", fails == 0))
    s = meds.get("shard_bulk_mbs", {})
    if "2q" in s and "1q" in s and s["1q"]:
        r = s["2q"] / s["1q"]
        out.append(("bulk, 2 queues vs 1", "%.2f×" % r, "≥ 1.70×", r >= 1.7))
    s = meds.get("shard_rr_per_s", {})
    if "2q" in s and "1q" in s and s["1q"]:
        r = s["2q"] / s["1q"]
        out.append(("round trips, 2 queues vs 1", "%.2f×" % r, "≥ 1.70×", r >= 1.7))
    rss = meds.get("rss_kib", {}).get("cthelperd")
    if rss is not None:
        out.append(("daemon RSS, four plugins", "%.0f KiB" % rss, "≤ 4096 KiB", rss <= 4096))
    return out


def aim32(meds):
    """Issue 32's aim: sandboxed costs at most 10 % of in-process on every
    measure: throughput at least 0.90×, CPU and memory at most 1.10×."""
    out = []
    for m in THROUGHPUT + ["cpu_ms_per_kpkt", "rss_kib", "pss_kib"]:
        v = meds.get(m, {})
        if not v.get("cthelperd") or not v.get("cthelperd-inproc"):
            continue
        r = v["cthelperd"] / v["cthelperd-inproc"]
        if MEASURES[m][1]:
            out.append((MEASURES[m][0], "%.2f×" % r, "≥ 0.90×", r >= 0.9))
        else:
            out.append((MEASURES[m][0], "%.2f×" % r, "≤ 1.10×", r <= 1.1))
    return out


def where(meds):
    """Where the time goes: the queue trip's cost, from the round trips
    (two queued packets per exchange: the request and the reply), and
    what the FTP sessions' extra time is made of."""
    rr, ftp, q = meds.get("rr_per_s", {}), meds.get("ftp_sps", {}), meds.get("ftp_queued_per_session", {})
    if not rr.get("none") or not rr.get("floor"):
        return []
    trip = (1 / rr["floor"] - 1 / rr["none"]) / 2 * 1000
    out = ["", "Where the time goes (from the medians above):", "",
           "- one queue trip (the floor's round trip minus no helper's, per packet): %.3f ms" % trip]
    for impl in ("cthelperd", "cthelperd-inproc"):
        if rr.get(impl):
            out.append("- %s: its own cost per queued packet beyond the floor: %.3f ms"
                       % (COLNAME[impl], (1 / rr[impl] - 1 / rr["floor"]) / 2 * 1000))
    # issue 34: the latency added per helped packet, from the round
    # trips' median and 99th percentile against no helper's (two helped
    # packets per round trip), the floor's next to it
    p50, p99 = meds.get("rr_p50_us", {}), meds.get("rr_p99_us", {})
    if p50.get("none") is not None and p99.get("none") is not None:
        for impl in ("floor", "cthelperd", "cthelperd-inproc", "cthelperd-kmod", "conntrackd", "kernel"):
            if p50.get(impl) is not None and p99.get(impl) is not None:
                out.append("- %s: latency added per helped packet: median %.0f µs, 99th percentile %.0f µs"
                           % (COLNAME[impl], (p50[impl] - p50["none"]) / 2,
                              (p99[impl] - p99["none"]) / 2))
    for impl in ("cthelperd", "cthelperd-inproc", "cthelperd-kmod", "conntrackd"):
        if ftp.get(impl) and ftp.get("kernel") and q.get(impl):
            extra = (1 / ftp[impl] - 1 / ftp["kernel"]) * FTP_PARALLEL * 1000
            out.append("- %s: an FTP session takes %.1f ms longer than with the kernel's helper "
                       "(%d sessions at a time); it queues %.1f packets, %.1f ms of queue trips"
                       % (COLNAME[impl], extra, FTP_PARALLEL, q[impl], q[impl] * trip))
    return out + where_sandbox(meds)


def where_sandbox(meds):
    """What the sandbox adds to the in-process daemon: on the critical path
    of a round trip (two packets with payload per exchange, each two
    doorbell turns to its sandbox and back), per FTP session and SIP call,
    and in CPU per queued packet."""
    s, i = "cthelperd", "cthelperd-inproc"
    out = []

    def both(m):
        v = meds.get(m, {})
        return (v[s], v[i]) if v.get(s) and v.get(i) else None

    rr = both("rr_per_s")
    if rr:
        out.append("- the sandbox, per packet with payload on a round trip's path (sandboxed minus "
                   "in-process, two such packets per exchange): %.3f ms"
                   % ((1 / rr[0] - 1 / rr[1]) / 2 * 1000))
    bulk = both("bulk_mbs")
    if bulk:
        out.append("- the sandbox, bulk: throughput %+.1f %% against in-process"
                   % ((bulk[0] / bulk[1] - 1) * 100))
    ftp = both("ftp_sps")
    if ftp:
        out.append("- the sandbox, per FTP session: %.1f ms longer (%d sessions at a time)"
                   % ((1 / ftp[0] - 1 / ftp[1]) * FTP_PARALLEL * 1000, FTP_PARALLEL))
    sip = both("sip_cps")
    if sip:
        out.append("- the sandbox, per SIP call: %.1f ms longer (%d calls at a time)"
                   % ((1 / sip[0] - 1 / sip[1]) * SIP_PARALLEL * 1000, SIP_PARALLEL))
    cpu = both("cpu_ms_per_kpkt")
    if cpu:
        out.append("- the sandbox, CPU per queued packet (the daemon, its spawner and sandboxes "
                   "against the in-process daemon and its idle spawner): %+.1f µs"
                   % (cpu[0] - cpu[1]))
    return out


# the pairs whose ratio is given per repetition: cthelperd (sandboxed)
# over each other column
PER_REP = [("cthelperd", "conntrackd"), ("cthelperd", "kernel"), ("cthelperd", "floor"),
           ("cthelperd", "cthelperd-inproc")]


def rep_key(r):
    return (0, int(r)) if r.isdigit() else (1, r)


def per_rep(byrep):
    """The ratios of each repetition alone (issue 34): the VM's speed
    changes between runs (it was bimodal in issue 32's), and within one
    repetition the columns ran back to back, so each repetition's ratio
    is a measurement of its own; the medians above can hide a split."""
    out = []
    for m in THROUGHPUT:
        for a, b in PER_REP:
            ra, rb = byrep.get((m, a), {}), byrep.get((m, b), {})
            reps = sorted((r for r in ra if r in rb and rb[r]), key=rep_key)
            if reps:
                out.append("| %s | %s ÷ %s | %s |" % (
                    MEASURES[m][0], COLNAME[a], COLNAME[b],
                    ", ".join("%.2f×" % (ra[r] / rb[r]) for r in reps)))
    if not out:
        return []
    return ["", "Ratios per repetition, in repetition order:", "",
            "| measure | ratio | repetitions |", "| --- | --- | --- |"] + out


def markdown(data, notes, byrep=None):
    meds = collections.defaultdict(dict)
    for (m, impl), vals in data.items():
        meds[m][impl] = statistics.median(vals)
    impls = [i for i in IMPLS if any((m, i) in data for m in MEASURES)]
    reps = max((len(v) for v in data.values()), default=0)
    lines = ["# Benchmark results", "",
             "Medians of %d repetitions (range in brackets), one VM run; "
             "ratios are cthelperd's median (plugins sandboxed) over the other's; "
             "sandbox ÷ in-process is cthelperd over cthelperd in-process (sandbox = no)." % reps, ""]
    head = ["measure"] + [COLNAME[i] for i in impls] + ["÷ conntrackd", "÷ kernel", "÷ floor",
                                                        "sandbox ÷ in-process"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + " --- |" * len(head))
    for m, (title, _) in MEASURES.items():
        if m.startswith("shard_") or not any((m, i) in data for i in impls):
            continue
        row = [title] + [cell(data.get((m, i), [])) for i in impls]
        row += [ratio(meds[m], "cthelperd", b)
                for b in ("conntrackd", "kernel", "floor", "cthelperd-inproc")]
        lines.append("| " + " | ".join(row) + " |")
    shard = [m for m in MEASURES if m.startswith("shard_") and
             any((m, q) in data for q in ("1q", "2q"))]
    if shard:
        lines += ["", "One helper on 1 queue vs sharded over 2 (cthelperd, two connections at once):", "",
                  "| measure | 1 queue | 2 queues | 2 ÷ 1 |", "| --- | --- | --- | --- |"]
        for m in shard:
            lines.append("| %s | %s | %s | %s |" % (MEASURES[m][0], cell(data.get((m, "1q"), [])),
                                                     cell(data.get((m, "2q"), [])),
                                                     ratio(meds[m], "2q", "1q")))
    lines += per_rep(byrep or {})
    lines += where(meds)
    calls = [(m, i) for m in ("sys_daemon_per_rr", "sys_sandbox_per_rr")
             for i in ("cthelperd", "cthelperd-inproc") if (m, i) in notes]
    if calls:
        lines += ["", "The most frequent system calls per round trip (strace -c, one run each):", ""]
        for m, i in calls:
            lines.append("- %s, %s: %s" % (COLNAME[i], MEASURES[m][0].split(": ")[1], notes[(m, i)]))
    t = targets(meds)
    if t:
        lines += ["", "Targets of issue 17:", "", "| target | measured | goal | |",
                  "| --- | --- | --- | --- |"]
        for what, val, goal, ok in t:
            lines.append("| %s | %s | %s | %s |" % (what, val, goal, "met" if ok else "**missed**"))
    a = aim32(meds)
    if a:
        lines += ["", "Aim of issue 32 (sandboxed within 10 % of in-process):", "",
                  "| measure | sandbox ÷ in-process | aim | |", "| --- | --- | --- | --- |"]
        for what, val, goal, ok in a:
            lines.append("| %s | %s | %s | %s |" % (what, val, goal, "met" if ok else "**missed**"))
    return "\n".join(lines) + "\n", meds, impls


def chart(meds, impls, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("report.py: python3-matplotlib missing (make deps): no chart\n")
        return False
    shown = [m for m in THROUGHPUT if meds.get(m, {}).get("kernel")]
    if not shown:
        return False
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / max(1, len(impls))
    for k, impl in enumerate(impls):
        ys = [meds[m].get(impl, 0) / meds[m]["kernel"] for m in shown]
        xs = [i + k * width for i in range(len(shown))]
        ax.bar(xs, ys, width, label=COLNAME[impl])
    ax.set_xticks([i + width * (len(impls) - 1) / 2 for i in range(len(shown))])
    ax.set_xticklabels([textwrap.fill(MEASURES[m][0], 24) for m in shown], fontsize=8)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("relative to the kernel's helper (median)")
    ax.set_title("cthelperd benchmark, one VM run")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


# ---------------------------------------------------------------- scale (issue 34 part 3)

SCALE_FTP_ROWS = [
    ("scale_held", "sessions held"),
    ("scale_failed", "sessions failed (since the start)"),
    ("scale_xfer_ok", "transfers made (PASV + RETR)"),
    ("scale_xfer_failed", "transfers failed"),
    ("scale_pss_kib", "helper PSS, KiB"),
    ("scale_open_helper_ms_per_k", "helper CPU ms per 1000 sessions opened"),
    ("scale_hold_helper_ms_per_k", "helper CPU ms per 1000 sessions held"),
    ("scale_open_vm_ms_per_k", "VM CPU ms per 1000 sessions opened"),
    ("scale_hold_vm_ms_per_k", "VM CPU ms per 1000 sessions held"),
    ("scale_open_s", "seconds to open the step"),
    ("scale_ct_count", "conntrack entries"),
]
SCALE_SIP_ROWS = [
    ("scale_sip_up", "dialogs answered"),
    ("scale_sip_expect", "expectations in the kernel, before the media"),
    ("scale_sip_media_a", "dialogs whose media passed callee → caller (INVITE's SDP)"),
    ("scale_sip_media_b", "dialogs whose media passed caller → callee (200's SDP)"),
]
SCALE_SIP_ORDER = ["kernel", "cthelperd", "cthelperd-max", "kernel-x", "cthelperd-max-x"]
SCALE_COUNTERS = ["expectations_created", "expectations_sent", "expectations_failed",
                  "expectations_table_full", "expectations_clash", "expectations_over_limit",
                  "overlay_evicted", "keep_evicted", "detach_full", "verdict_errors",
                  "undelivered", "kernel_queue_dropped", "kernel_user_dropped",
                  "kernel_dropped", "sandbox_timeouts", "sandbox_packets_lost", "stalls"]


def scale_read(path):
    """{measure: {impl: {rep: (value, note)}}} of the scale_ lines."""
    out = collections.defaultdict(lambda: collections.defaultdict(dict))
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4 or not parts[0].startswith("scale_"):
                continue
            try:
                v = float(parts[3])
            except ValueError:
                continue
            out[parts[0]][parts[1]][int(parts[2]) if parts[2].isdigit() else parts[2]] = (
                v, parts[4] if len(parts) > 4 else "")
    return out


def scale_growth(points):
    """KiB (or ms) per 1000 connections between the first and the last
    step, and whether that is flat (the last step's value grows by less
    than a tenth of what it would if it were all per connection)."""
    if len(points) < 2:
        return None, ""
    (n0, v0), (n1, v1) = points[0], points[-1]
    slope = (v1 - v0) / (n1 - n0) * 1000
    if v1 <= 0:
        return slope, ""
    return slope, "flat" if slope * n1 / 1000 < 0.1 * v1 else "linear"


def scale_report(path, outdir):
    """The scale phase's table (results-scale.md) and plot
    (results-scale.png); False when the run has no scale phase."""
    d = scale_read(path)
    if not d:
        return False
    lines = ["# Scale: many helped connections at once (issue 34)", ""]
    facts = [(k[len("scale_fact_"):], v[0]) for k, by in sorted(d.items())
             if k.startswith("scale_fact_") for v in [by.get("kernel", {}).get(0)] if v]
    if facts:
        lines += ["The VM's kernel as booted: " +
                  ", ".join("%s %s" % (k, fmt(v)) for k, v in facts) + ".", ""]
    impls = [i for i in ["kernel", "cthelperd", "cthelperd-big", "conntrackd"] + IMPLS
             if i in d.get("scale_held", {})]
    impls = list(dict.fromkeys(impls))
    steps = sorted({n for m, _ in SCALE_FTP_ROWS for i in impls
                    for n in d.get(m, {}).get(i, {}) if isinstance(n, int)})
    if impls and steps:
        lines += ["FTP control connections held (cthbench-load hold), by step "
                  "(cthelperd-big: inflight_entries = 16384, sandbox_timeout_ms = 1000):", "",
                  "| column | measure | " + " | ".join("%d" % n for n in steps) +
                  " | per 1000 more, first to last step |",
                  "| --- | --- |" + " --- |" * (len(steps) + 1)]
        for i in impls:
            rows = SCALE_FTP_ROWS + [("scale_ctr_" + c, "counter " + c) for c in SCALE_COUNTERS]
            for m, title in rows:
                by = d.get(m, {}).get(i, {})
                if not by:
                    continue
                pts = [(n, by[n][0]) for n in steps if n in by]
                g, kind = scale_growth(pts) if m in ("scale_pss_kib", "scale_ct_count") else (None, "")
                lines.append("| %s | %s | %s | %s |" % (
                    COLNAME.get(i, i), title,
                    " | ".join(fmt(by[n][0]) if n in by else "—" for n in steps),
                    "%s (%s)" % (fmt(g), kind) if g is not None else ""))
        why = []
        for i in impls:
            for m in ("scale_failed", "scale_xfer_failed"):
                by = d.get(m, {}).get(i, {})
                if by:
                    last = by[max(by)]
                    if last[0] and last[1] not in ("", "-"):
                        why.append("- %s: %s" % (COLNAME.get(i, i), last[1]))
                        break
        if why:
            lines += ["", "Why sessions and transfers failed (the last step, since the start):", ""] + why
    seen = {i for m, _ in SCALE_SIP_ROWS for i in d.get(m, {})}
    sip = [i for i in SCALE_SIP_ORDER if i in seen] + sorted(seen - set(SCALE_SIP_ORDER))
    if sip:
        lines += ["", "A SIP trunk: dialogs on one signalling flow (sip.py trunk-*), media sent "
                  "both ways once every dialog was up (-x: nf_conntrack_expect_max raised to 8 per "
                  "dialog; cthelperd-max: policy.audio.max = 255, sandbox_timeout_ms = 1000, "
                  "inflight_entries = 16384):", "",
                  "| measure | " + " | ".join(sip) + " |", "|" + " --- |" * (len(sip) + 1)]
        for m, title in SCALE_SIP_ROWS + [("scale_ctr_" + c, "counter " + c) for c in SCALE_COUNTERS]:
            if not any(set(d.get(m, {}).get(i, {})) & set(d.get("scale_sip_up", {}).get(i, {}))
                       for i in sip):
                continue
            cells = []
            for i in sip:
                # the trunk's own (its REP is the dialogs): "cthelperd"
                # names an FTP column too
                trunk = set(d.get("scale_sip_up", {}).get(i, {}))
                by = {r: v for r, v in d.get(m, {}).get(i, {}).items() if r in trunk}
                cells.append(" ".join(fmt(v[0]) for _, v in sorted(by.items(), key=lambda x: str(x[0]))) or "—")
            lines.append("| %s | %s |" % (title, " | ".join(cells)))
        dialogs = sorted({n for i in sip for n in d.get("scale_sip_up", {}).get(i, {})})
        if dialogs:
            lines += ["", "Dialogs per trunk: %s." % ", ".join("%s" % n for n in dialogs)]
    text = "\n".join(lines) + "\n"
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "results-scale.md"), "w") as f:
        f.write(text)
    sys.stdout.write("\n" + text)
    if impls and steps and scale_chart(d, impls, os.path.join(outdir, "results-scale.png")):
        print("\nchart: %s" % os.path.join(outdir, "results-scale.png"))
    return True


def scale_chart(d, impls, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("report.py: python3-matplotlib missing (make deps): no chart\n")
        return False
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    panels = [("scale_pss_kib", "helper PSS, KiB"),
              ("scale_hold_helper_ms_per_k", "helper CPU ms per 1000 held"),
              ("scale_hold_vm_ms_per_k", "VM CPU ms per 1000 held")]
    for ax, (m, title) in zip(axes, panels):
        for i in impls:
            by = d.get(m, {}).get(i, {})
            pts = sorted((n, v[0]) for n, v in by.items() if isinstance(n, int))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        label=COLNAME.get(i, i))
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("FTP control connections held")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7)
    fig.suptitle("cthelperd at scale, one VM run (TCG)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: report.py RAW.tsv OUTDIR\n")
        return 2
    data, byrep, notes = read_raw(sys.argv[1])
    # issue 34 part 3: its own table and plot; its lines stay out of the rest
    scale = scale_report(sys.argv[1], sys.argv[2])
    data = {k: v for k, v in data.items() if not k[0].startswith("scale_")}
    byrep = {k: v for k, v in byrep.items() if not k[0].startswith("scale_")}
    if not data and scale:
        return 0
    if not data:
        sys.stderr.write("report.py: no measurements in %s\n" % sys.argv[1])
        return 1
    text, meds, impls = markdown(data, notes, byrep)
    os.makedirs(sys.argv[2], exist_ok=True)
    with open(os.path.join(sys.argv[2], "results.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    if chart(meds, impls, os.path.join(sys.argv[2], "results.png")):
        print("\nchart: %s" % os.path.join(sys.argv[2], "results.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
