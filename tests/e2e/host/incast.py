#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The incast group's numbers (Documentation/experiments.rst), on the host.

    incast.py CHECK DIR    one check of the PFC + ECN + DCQCN scenario;
                           exit 0 if it holds, 1 if not, the figures on
                           stdout as "# ..." lines.  CHECK is one of:
        queue      after warm-up, the bottleneck queue's median lies
                   between Kmin and Kmax and its 95th percentile below
                   Kmax
        pauses     PFC frames at least 90% fewer than with PFC alone
        converge   after S2 starts the senders converge within
                   CONVERGE_S: every 1-second window from then until S2
                   stops has Jain's fairness index 0.95 or better
        goodput    total goodput at least 90% of the PFC-only run's
    incast.py host DIR     the host's CPU time in each scenario: busy,
                           idle and stolen by the hypervisor (cpu.txt),
                           so that a run the host slowed down says so
    incast.py table DIR    the scenario table (every scenario run)
    incast.py plot DIR     series.NAME.png per scenario, with gnuplot

DIR is the group's output directory: series.NAME.jsonl (the switch's time
series, rocx-switch.rst "Time series") and guest0/incast.jsonl (one JSON
object per scenario from guest/incast.sh: goodputs, drops, PFC frames,
and the RED settings of the dcqcn scenario), switch-ctl.log (each switch
command guest 0 gave, with the host's time) and cpu.txt (the host's
/proc/stat cpu line every half second, host/cpustat.sh).  The senders'
rates are
their ports' ingress rates of priority 3, the queue is R's port's
egress queue of priority 3 (switch ports 1, 2 and 0).
"""
import json
import os
import shutil
import subprocess
import sys

PRIO = 3
R, S1, S2 = 0, 1, 2
# A sender is running in a sample where its port brings in more than this.
ACTIVE_MBPS = 1.0
# After S2 starts: this much warm-up before the queue is judged, and at
# most this long until the senders converge.  Both are judged until
# END_S before S2's scheduled end, while both senders still send (its
# last messages drain one by one).
WARMUP_S = 1.0
END_S = 0.5
CONVERGE_S = 2.0
JAIN_MIN = 0.95
WINDOW_S = 1.0


def load_series(d, name):
    path = os.path.join(d, f'series.{name}.jsonl')
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def load_results(d):
    """The scenarios' results: guest 0's, and the victim's, which its
    receiver, guest 2, wrote."""
    res = {}
    for path in (('guest0', 'incast.jsonl'), ('guest2', 'victim.jsonl')):
        try:
            f = open(os.path.join(d, *path))
        except FileNotFoundError:
            if path[0] == 'guest0':
                raise
            continue
        with f:
            for line in f:
                line = line.strip()
                if line:
                    o = json.loads(line)
                    res[o['scenario']] = o
    return res


def port(row, p):
    for x in row['ports']:
        if x['port'] == p:
            return x
    raise KeyError(p)


def rate(row, p):
    return port(row, p)['rx_mbps_prio'][PRIO]


def depth(row):
    return port(row, R)['depth_prio'][PRIO]


def active_span(rows, p):
    """First and last sample time at which port p's sender ran."""
    ts = [r['t'] for r in rows if rate(r, p) > ACTIVE_MBPS]
    if not ts:
        return None
    return ts[0], ts[-1]


def percentile(xs, q):
    """The q-th percentile (0..100), nearest rank."""
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(round(q / 100 * len(s) + 0.5)) - 1))
    return s[k]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def jain(xs):
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq else 0.0


def window_means(rows, t0, t1):
    """Each sender's mean rate over the samples in (t0, t1]."""
    w = [r for r in rows if t0 < r['t'] <= t1 + 1e-9]
    if not w:
        return None
    return [sum(rate(r, p) for r in w) / len(w) for p in (S1, S2)]


def s2_span(rows, cfg):
    """S2's start and the end of the time both senders are judged in."""
    span = active_span(rows, S2)
    if not span:
        return None
    start = span[0] - interval(rows)
    end = span[1]
    if cfg and 's2_secs' in cfg:
        end = min(end, start + cfg['s2_secs'] - END_S)
    return start, end


def interval(rows):
    return rows[1]['t'] - rows[0]['t'] if len(rows) > 1 else 0.1


def convergence(rows, cfg=None):
    """(S2's start, time converged or None, the windows' Jain indexes)."""
    span = s2_span(rows, cfg)
    if not span:
        return None, None, []
    start, end = span
    ends = [r['t'] for r in rows if start + WINDOW_S <= r['t'] <= end + 1e-9]
    idx = []
    for t in ends:
        m = window_means(rows, t - WINDOW_S, t)
        idx.append((t - WINDOW_S, jain(m) if m else 0.0))
    # The earliest window start from which every later window is fair.
    conv = None
    for i in range(len(idx)):
        if all(j >= JAIN_MIN for _, j in idx[i:]):
            conv = idx[i][0]
            break
    return start, conv, idx


def check_queue(d):
    rows = load_series(d, 'dcqcn')
    cfg = load_results(d)['dcqcn_cfg']
    span = s2_span(rows, cfg)
    if not span:
        print('# no sample with S2 running')
        return False
    qs = [depth(r) for r in rows if span[0] + WARMUP_S <= r['t'] <= span[1]]
    if not qs:
        print('# no sample after warm-up')
        return False
    med, p95 = median(qs), percentile(qs, 95)
    print(f'# queue over {len(qs)} samples from {WARMUP_S} s after S2 '
          f'started: median {med / 1000:.1f} KB, p95 {p95 / 1000:.1f} KB '
          f'(Kmin {cfg["kmin"] / 1000:.1f} KB, Kmax {cfg["kmax"] / 1000:.1f} KB)')
    return cfg['kmin'] <= med <= cfg['kmax'] and p95 < cfg['kmax']


def check_pauses(d):
    res = load_results(d)
    pfc, dc = res['pfc']['pfc_sent'], res['dcqcn']['pfc_sent']
    print(f'# PFC frames: {dc} with DCQCN, {pfc} with PFC alone')
    return pfc > 0 and dc <= 0.1 * pfc


def check_converge(d):
    rows = load_series(d, 'dcqcn')
    start, conv, idx = convergence(rows, load_results(d).get('dcqcn_cfg'))
    if start is None:
        print('# no sample with S2 running')
        return False
    print('# Jain over 1 s windows: ' +
          ' '.join(f'{t - start:.2f}s:{j:.3f}' for t, j in idx[::4]))
    if conv is None:
        print('# never converged')
        return False
    # When the senders converge after S2's start, the lowest index from
    # then is by its definition the first window at JAIN_MIN or above:
    # it says nothing of the margin.  The lowest of the windows that no
    # longer overlap that one does.
    low = min(j for t, j in idx if t >= conv)
    later = [j for t, j in idx if t >= conv + WINDOW_S]
    print(f'# converged {conv - start:.2f} s after S2 started '
          f'(limit {CONVERGE_S} s); lowest Jain from then {low:.3f}, '
          f'from {WINDOW_S:.0f} s after it '
          f'{min(later) if later else low:.3f}')
    return conv - start <= CONVERGE_S


SCENARIOS = ('lossy', 'pfc', 'victim', 'dcqcn')


def scenarios_run(d):
    """The scenarios guest 0 set the fabric up for, in order."""
    with open(os.path.join(d, 'guest0', 'log')) as f:
        log = f.read()
    return [n for n in SCENARIOS if f'ok - {n}: fabric set up' in log]


def scenario_windows(d):
    """{scenario: (start, end)} in the host's time, from switch-ctl.log.

    Each scenario begins with guest 0 clearing the switch's QoS, in the
    order of SCENARIOS, and the run ends with one more; a scenario with a
    time series is judged from its series' start to its end (the victim
    has none: its three flows in turn).
    """
    clears, series = [], {}
    with open(os.path.join(d, 'switch-ctl.log')) as f:
        for line in f:
            w = line.split()
            if len(w) < 3 or w[1] != 'guest0':
                continue
            try:
                t = float(w[0])
            except ValueError:
                continue
            if w[2:5] == ['qos', 'port=all', 'clear']:
                clears.append(t)
            elif w[2] == 'series' and len(w) > 3:
                if w[3].startswith('file='):
                    name = w[3].rsplit('series.', 1)[-1]
                    name = name.removesuffix('.jsonl')
                    series[name] = [t, None]
                elif w[3] == 'off':
                    for v in series.values():
                        if v[1] is None:
                            v[1] = t
    ran = scenarios_run(d)
    win = {}
    for i, name in enumerate(ran):
        if i + 1 < len(clears):
            win[name] = (clears[i], clears[i + 1])
        if name in series and series[name][1] is not None:
            win[name] = tuple(series[name])
    return win


def cpu_samples(d):
    """[(time, [jiffies of /proc/stat's cpu line])...] from cpu.txt."""
    out = []
    with open(os.path.join(d, 'cpu.txt')) as f:
        for line in f:
            w = line.split()
            if len(w) >= 10 and w[1] == 'cpu':
                out.append((float(w[0]), [int(x) for x in w[2:10]]))
    return out


def cpu_shares(samples, t0, t1):
    """(busy, idle, stolen) percent of the host's CPU time in [t0, t1],
    between the samples nearest outside it; None if none brackets it."""
    a = [s for s in samples if s[0] <= t0]
    b = [s for s in samples if s[0] >= t1]
    if not a or not b:
        return None
    d = [y - x for x, y in zip(a[-1][1], b[0][1])]
    total = sum(d)
    if total <= 0:
        return None
    # user nice system idle iowait irq softirq steal
    busy = d[0] + d[1] + d[2] + d[5] + d[6]
    idle = d[3] + d[4]
    return tuple(100 * x / total for x in (busy, idle, d[7]))


def host_report(d):
    """{scenario: (busy, idle, stolen)} for every scenario it covers."""
    samples = cpu_samples(d)
    rep = {}
    for name, (t0, t1) in scenario_windows(d).items():
        sh = cpu_shares(samples, t0, t1)
        if sh:
            rep[name] = sh
    return rep


def check_host(d):
    rep = host_report(d)
    for name in SCENARIOS:
        if name in rep:
            busy, idle, stolen = rep[name]
            print(f'# host CPU in {name}: {busy:.0f}% busy, {idle:.0f}% '
                  f'idle, {stolen:.0f}% stolen by the hypervisor')
    ran = scenarios_run(d)
    return bool(ran) and all(n in rep for n in ran)


def host_note(d, names, prefix='# '):
    """A line of the stolen CPU time in names, if recorded."""
    try:
        rep = host_report(d)
    except OSError:
        return
    got = [f'{n} {rep[n][2]:.0f}%' for n in names if n in rep]
    if got:
        print(prefix + 'host CPU stolen by the hypervisor: ' +
              ', '.join(got))


def line_share(d, name):
    """The share of the bottleneck's line time the host gave it while S1
    sent in scenario name: 1 less the time R's port lost with frames
    waiting by the host's doing (lost_host_ns, rocx-switch.rst "Line
    rate") over that time.  What R lost by not reading while it ran
    (lost_recv_ns: its NIC had no buffer) is its own, and excuses nothing.
    """
    rows = load_series(d, name)
    span = active_span(rows, S1)
    if not span:
        return 1.0
    w = [r for r in rows
         if span[0] - interval(rows) - 1e-9 <= r['t'] <= span[1] + 1e-9]
    if len(w) < 2:
        return 1.0
    lost = (port(w[-1], R).get('lost_host_ns', 0) -
            port(w[0], R).get('lost_host_ns', 0)) / 1e9
    secs = w[-1]['t'] - w[0]['t']
    return max(0.0, secs - lost) / secs


def check_goodput(d):
    """DCQCN's goodput against PFC's, each per unit of the line time the
    host gave the bottleneck: a host that stopped the switch (and the
    guests) in one scenario and not in the other (runs V, Z and AA,
    Documentation/experiments.rst) says nothing of DCQCN.  Line time lost
    while the queue was empty is not counted, which can only make DCQCN,
    whose queue is the shorter, look worse."""
    res = load_results(d)
    pfc = res['pfc']['s1_mbps'] + res['pfc']['s2_mbps']
    dc = res['dcqcn']['s1_mbps'] + res['dcqcn']['s2_mbps']
    sp, sd = line_share(d, 'pfc'), line_share(d, 'dcqcn')
    print(f'# total goodput: {dc:.1f} Mb/s with DCQCN, {pfc:.1f} with PFC '
          f'alone ({100 * dc / pfc if pfc else 0:.0f}%)')
    print(f'# the bottleneck had {100 * sd:.1f}% of its line time with '
          f'DCQCN, {100 * sp:.1f}% with PFC alone: per unit of it '
          f'{dc / sd if sd else 0:.1f} and {pfc / sp if sp else 0:.1f} Mb/s '
          f'({100 * dc * sp / (pfc * sd) if pfc and sd else 0:.0f}%)')
    host_note(d, ('pfc', 'dcqcn'))
    return pfc > 0 and sd > 0 and dc / sd >= 0.9 * pfc / sp


def summary(d, name, res):
    """The table's row of scenario name (a dict), from its series too."""
    row = dict(res.get(name, {}))
    try:
        rows = load_series(d, name)
    except OSError:
        return row
    last = rows[-1]
    row['marked'] = port(last, R)['marked'][PRIO] - \
        port(rows[0], R)['marked'][PRIO]
    cfg = res.get('dcqcn_cfg')
    span = s2_span(rows, cfg)
    qs = [depth(r) for r in rows
          if span and span[0] + WARMUP_S <= r['t'] <= span[1]]
    if qs:
        row['q_median'] = median(qs)
        row['q_p95'] = percentile(qs, 95)
    _, conv, idx = convergence(rows, cfg)
    if idx:
        row['jain'] = min(j for t, j in idx
                          if conv is None or t >= conv)
    return row


def table(d):
    res = load_results(d)
    cnp = res.get('dcqcn_np', {}).get('cnp_sent')
    print(f'{"scenario":8} {"S1 Mb/s":>8} {"S2 Mb/s":>8} {"drops":>7} '
          f'{"PFC":>6} {"marks":>7} {"CNPs":>6} {"Jain":>6} '
          f'{"q med KB":>8} {"q p95 KB":>8}')
    for name in ('lossy', 'pfc', 'dcqcn'):
        if name not in res:
            continue
        r = summary(d, name, res)

        def f(k, fmt):
            return format(r[k], fmt) if k in r else '-'
        print(f'{name:8} {f("s1_mbps", ".1f"):>8} {f("s2_mbps", ".1f"):>8} '
              f'{f("dropped", "d"):>7} {f("pfc_sent", "d"):>6} '
              f'{f("marked", "d"):>7} '
              f'{(str(cnp) if name == "dcqcn" and cnp is not None else "-"):>6} '
              f'{f("jain", ".3f"):>6} '
              f'{(format(r["q_median"] / 1000, ".1f") if "q_median" in r else "-"):>8} '
              f'{(format(r["q_p95"] / 1000, ".1f") if "q_p95" in r else "-"):>8}')
    v = res.get('victim')
    if v:
        print(f'victim: alone {v["alone_mbps"]} Mb/s, on another priority '
              f'{v["other_prio_mbps"]}, on the paused priority '
              f'{v["same_prio_mbps"]}')
        if v.get('alone_line_mbps') is not None:
            print(f'victim per unit of its port\'s line time: alone '
                  f'{v["alone_line_mbps"]} Mb/s, on another priority '
                  f'{v["other_prio_line_mbps"]}, on the paused priority '
                  f'{v["same_prio_line_mbps"]}')
    shares = []
    for name in ('pfc', 'dcqcn'):
        try:
            shares.append(f'{name} {100 * (1 - line_share(d, name)):.1f}%')
        except OSError:
            pass
    if shares:
        print('bottleneck line time lost with frames waiting: ' +
              ', '.join(shares))
    host_note(d, SCENARIOS, prefix='')
    return True


GNUPLOT = '''set terminal png size 800,800 font ",9"
set output "{png}"
set multiplot layout 4,1 title "{title}"
set lmargin 10
set grid
set key top right
set ylabel "queue (KB)"
{red}plot "{dat}" using 1:2 with lines lw 1.5 title "R's port, priority {prio}"
set ylabel "rate (Mb/s)"
unset arrow
plot {rates}
set ylabel "PFC frames / s"
plot {pauses}
set ylabel "marks / s"
set xlabel "{xlabel}"
plot "{dat}" using 1:{marks} with lines title "CE marks at R's port"
unset multiplot
'''


def draw(rows, prio, dat, png, title, red=None, tscale=1.0,
         xlabel='time (s)', senders=(S1, S2)):
    """One scenario's PNG from its series ROWS: the queue of priority
    PRIO at R's port (RED's Kmin and Kmax as dashed lines when RED is a
    (kmin, kmax) pair, in bytes), the rates of the SENDERS' ports (S1's
    and S2's unless told) coming in on PRIO, the PFC frames the switch
    sent them and the CE marks at R's port; time is the series' t times
    TSCALE.  DAT is the data file written for gnuplot: time, queue, the
    senders' rates, their PFC frames per second, marks per second."""
    with open(dat, 'w') as f:
        prev = rows[0]
        for r in rows[1:]:
            dt = r['t'] - prev['t'] or 1
            pauses = [port(r, p)['pause_tx'][prio] -
                      port(prev, p)['pause_tx'][prio] for p in senders]
            dm = port(r, R)['marked'][prio] - port(prev, R)['marked'][prio]
            f.write(f'{r["t"] * tscale:.6g} '
                    f'{port(r, R)["depth_prio"][prio] / 1000:.2f} ' +
                    ''.join(f'{port(r, p)["rx_mbps_prio"][prio]:.2f} '
                            for p in senders) +
                    ''.join(f'{d / dt:.1f} ' for d in pauses) +
                    f'{dm / dt:.1f}\n')
            prev = r
    arrows = ''
    for k in red or ():
        arrows += (f'set arrow from graph 0, first {k / 1000} to '
                   f'graph 1, first {k / 1000} nohead dt 2\n')
    n = len(senders)
    rates = ', \\\n     '.join(
        f'"{dat}" using 1:{3 + i} with lines lw 1.5 title "S{p}"'
        for i, p in enumerate(senders))
    pauses = ', \\\n     '.join(
        f'"{dat}" using 1:{3 + n + i} with lines title "to S{p}"'
        for i, p in enumerate(senders))
    script = GNUPLOT.format(png=png, dat=dat, red=arrows, prio=prio,
                            title=title, xlabel=xlabel, rates=rates,
                            pauses=pauses, marks=3 + 2 * n)
    p = subprocess.run(['gnuplot'], input=script, text=True,
                       capture_output=True, check=False)
    if p.returncode:
        print(p.stderr, file=sys.stderr)
        return False
    print(png)
    return True


def plot(d):
    if not shutil.which('gnuplot'):
        print('incast.py: plot needs gnuplot (gnuplot-nox)', file=sys.stderr)
        return False
    res = load_results(d)
    ok = True
    for name in ('lossy', 'pfc', 'dcqcn'):
        try:
            rows = load_series(d, name)
        except OSError:
            continue
        cfg = res.get('dcqcn_cfg')
        red = (cfg['kmin'], cfg['kmax']) if name == 'dcqcn' and cfg else None
        ok &= draw(rows, PRIO, os.path.join(d, f'series.{name}.dat'),
                   os.path.join(d, f'series.{name}.png'), f'incast: {name}',
                   red)
    return ok


CHECKS = {
    'queue': check_queue,
    'pauses': check_pauses,
    'converge': check_converge,
    'goodput': check_goodput,
    'host': check_host,
    'table': table,
    'plot': plot,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CHECKS:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return 0 if CHECKS[sys.argv[1]](sys.argv[2]) else 1
    except (OSError, KeyError, ValueError, IndexError) as e:
        print(f'# incast.py {sys.argv[1]}: {e!r}')
        return 1


if __name__ == '__main__':
    sys.exit(main())
