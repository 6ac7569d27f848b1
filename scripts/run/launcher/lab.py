# SPDX-License-Identifier: GPL-2.0
"""rocx lab (Documentation/lab.rst): guests that stay up on a fabric a
topology file describes.

`up` checks the file and starts a supervisor, which runs in the
background in a session of its own, so that the lab outlives the shell
that started it and any shell can end it; `up` only watches the guests
come up.  The supervisor starts the switch and the QEMUs, records them in
STATE/state.json, and ends them all when told to (SIGTERM, which `down`
sends) or when a guest dies, so a lab never stays half up.  The other
commands read state.json and talk to the guests' agents and sockets."""
import json
import os
import select
import socket
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import time
import tty

import launcher
from launcher import REPO, Die, capture, now_ms, read_text, secs
from launcher import fabric, guest, qga, topology, userkernel

LABS = os.path.join(REPO, "build/lab")
ENTRY = os.path.join(REPO, "scripts/rocx")
GUEST_SCRIPT = os.path.join(REPO, "scripts/guest/lab.sh")
INFO_SCRIPT = os.path.join(REPO, "scripts/guest/lab_info.py")
# How long `up` waits for every guest (times ROCX_TIME_SCALE on the debug
# kernel), and a supervisor for what it ends.
UP_TIMEOUT_S = 300
TERM_GRACE_S = 2
DOWN_WAIT_S = 20
POLL_S = 0.2
# How often `capture` asks whether its capture still runs.
CAPTURE_POLL_S = 0.5


def say(msg):
    print("rocx: " + msg, flush=True)


def fail(msg, status=1):
    print("rocx: " + msg, file=sys.stderr, flush=True)
    raise SystemExit(status)


def alive(pid):
    """PID runs and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def load_state(sdir):
    try:
        with open(os.path.join(sdir, "state.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def lab_is_up(state):
    return state is not None and state.get("up") and \
        alive(state.get("supervisor", 0))


def pick(name):
    """The state directory of lab NAME, or of the only lab that is up."""
    if name:
        sdir = os.path.join(LABS, name)
        if not lab_is_up(load_state(sdir)):
            fail("lab %s is not up" % name)
        return sdir
    up = sorted(d for d in (os.listdir(LABS) if os.path.isdir(LABS) else ())
                if lab_is_up(load_state(os.path.join(LABS, d))))
    if not up:
        fail("no lab is up")
    if len(up) > 1:
        fail("labs %s are up: give --name" % ", ".join(up))
    return os.path.join(LABS, up[0])


# ------------------------------------------------------------------- up

def up(path, timeout=None):
    """Check PATH, start its lab's supervisor and wait for every guest."""
    try:
        topo = topology.parse(path)
    except topology.TopologyError as e:
        fail(str(e), 2)
    sdir = os.path.join(LABS, topo.name)
    if lab_is_up(load_state(sdir)):
        fail("lab %s is already up (rocx lab down --name %s)"
             % (topo.name, topo.name))
    shutil.rmtree(sdir, ignore_errors=True)
    os.makedirs(sdir)
    # Kernel trees of one's own, checked by the parser: the rocx modules
    # built for each, here where the user sees it happen.
    for tree in sorted({g.kernel for g in topo.guests
                        if os.path.isabs(g.kernel)}):
        say("kernel %s (%s): building the rocx modules for it"
            % (tree, userkernel.release(tree)))
        try:
            with open(os.path.join(sdir, "kernels.log"), "a") as log:
                userkernel.prepare(tree, log)
        except Die as e:
            log = read_text(os.path.join(userkernel.out_dir(tree),
                                         "build.log")) or ""
            sys.stderr.write("\n".join(log.splitlines()[-20:]) + "\n")
            fail(str(e))
    # The fabric's network namespace, as run-guests.sh's
    # (fabric.enter_fabric_netns): unshare without --fork execs the
    # supervisor in it, so the PID it is known by stays its own.
    argv = [sys.executable, ENTRY, "lab", "_supervise", sdir,
            os.path.abspath(path)]
    if subprocess.run(["unshare", "--net", "true"], stderr=subprocess.DEVNULL,
                      check=False).returncode == 0:
        argv = ["unshare", "--net", "env", "ROCX_LAB_NETNS=1"] + argv
    with open(os.path.join(sdir, "supervisor.log"), "wb") as log:
        sup = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                               stderr=subprocess.STDOUT,
                               start_new_session=True)
    t0 = now_ms()
    limit = timeout or UP_TIMEOUT_S * (
        guest.time_scale() if any(g.kernel == "debug" or
                                  os.path.isabs(g.kernel)
                                  for g in topo.guests)
        else 1)
    say("lab %s: starting %d guests (state in %s)"
        % (topo.name, len(topo.names), os.path.relpath(sdir)))
    waiting = list(topo.names)
    booting = set()
    try:
        while waiting:
            if sup.poll() is not None:
                log = read_text(os.path.join(sdir, "supervisor.log")) or ""
                sys.stderr.write("\n".join(log.splitlines()[-20:]) + "\n")
                fail("lab %s failed to come up (%s)"
                     % (topo.name, os.path.relpath(
                         os.path.join(sdir, "supervisor.log"))))
            for n in list(waiting):
                ndir = os.path.join(sdir, n)
                if n not in booting and \
                        os.path.exists(os.path.join(ndir, "qemu.log")):
                    booting.add(n)
                    say("%s: booting" % n)
                if os.path.exists(os.path.join(ndir, "ready")):
                    waiting.remove(n)
                    say("%s: up after %ss" % (n, secs(now_ms() - t0)))
            if waiting and now_ms() - t0 > limit * 1000:
                fail("lab %s: %s not up after %ds (their console.log in %s)"
                     % (topo.name, ", ".join(waiting), limit,
                        os.path.relpath(sdir)))
            time.sleep(POLL_S)
    except BaseException:
        # Interrupted or failed half-way: the supervisor ends what it
        # started.
        if sup.poll() is None:
            sup.send_signal(signal.SIGTERM)
            try:
                sup.wait(DOWN_WAIT_S)
            except subprocess.TimeoutExpired:
                sup.kill()
        raise
    say("lab %s is up: rocx lab exec NODE -- CMD, rocx lab inspect, "
        "rocx lab down" % topo.name)


# ----------------------------------------------------------- supervisor

class Supervisor:
    """What one lab started, ended whatever way the lab ends."""

    def __init__(self, sdir, topo):
        self.sdir = sdir
        self.topo = topo
        self.run = None
        self.switch = None
        self.qemus = {}             # node name -> Popen
        self.stopping = False

    def state(self, up):
        write_json(os.path.join(self.sdir, "state.json"), {
            "name": self.topo.name,
            "file": self.topo.path,
            "up": up,
            "supervisor": os.getpid(),
            "run": self.run,
            "switch": self.switch.pid if self.switch else None,
            "ctl": os.path.join(self.run, "ctl.sock")
            if self.switch else None,
            "qemu": {n: p.pid for n, p in self.qemus.items()},
        })

    def start(self):
        topo = self.topo
        if os.environ.get("ROCX_LAB_NETNS") == "1":
            for argv in (["ip", "link", "set", "lo", "up"],
                         ["sysctl", "-qw", "net.unix.max_dgram_qlen=%d"
                          % fabric.FABRIC_QLEN]):
                subprocess.run(argv, check=False)
        # Unix socket paths must stay under 108 bytes.
        self.run = tempfile.mkdtemp(prefix="rocx-lab.", dir="/tmp")
        os.makedirs(os.path.join(self.sdir, "shared"))
        self.state(False)
        qemu = os.path.join(REPO, "build/qemu-system-x86_64")
        if not os.access(qemu, os.X_OK):
            qemu = "/usr/bin/qemu-system-x86_64"
        switch = os.path.join(REPO, "build/tools/rocx-switch")
        initrd = capture(["bash",
                          os.path.join(REPO, "scripts/build/mkinitramfs.sh")])
        if initrd is None:
            raise Die("initramfs build failed")
        kernels = guest.Kernels(initrd)
        for g in topo.guests:
            g.cmd = GUEST_SCRIPT
            kernels.resolve(g)
        self.wire()
        if topo.ports:
            args = list(topo.switch_args)
            for link in topo.links:
                args += link.switch_args
            if topo.series:
                args += ["--series", os.path.join(self.sdir, "series.jsonl")]
            self.switch = fabric.start_switch(
                switch, self.run, topo.ports,
                os.path.join(self.sdir, "switch.log"), args)
            self.state(False)
        for g in topo.guests:
            self.launch(qemu, g)
        self.state(True)

    def wire(self):
        """Each NIC's sockets: a switch port's (fabric.wire's names), or
        the two ends of a wire sending to each other."""
        guests = self.topo.guests
        for i, link in enumerate(self.topo.links):
            if link.port >= 0:
                gi, ki = link.ends[0]
                nic = guests[gi].nics[ki]
                nic.lsock = "%s/g%d.sock" % (self.run, link.port)
                nic.rsock = "%s/sw%d.sock" % (self.run, link.port)
                continue
            for j, (gi, ki) in enumerate(link.ends):
                nic = guests[gi].nics[ki]
                nic.lsock = "%s/w%d.%d.sock" % (self.run, i, j)
                nic.rsock = "%s/w%d.%d.sock" % (self.run, i, 1 - j)

    def launch(self, qemu, g):
        topo = self.topo
        name = topo.names[g.index]
        ndir = os.path.join(self.sdir, name)
        os.makedirs(ndir, exist_ok=True)
        with open(os.path.join(ndir, "lab.conf"), "w") as f:
            f.write("name %s\n" % name)
            for nic in g.nics:
                f.write("nic %d 52:54:00:00:%02x:%02x %s %s\n"
                        % (nic.index, nic.index, g.index, nic.model,
                           " ".join(topo.addresses[(g.index, nic.index)])))
            for (gi, ki), prios in sorted(topo.pfc.items()):
                if gi == g.index:
                    f.write("pfc %d %s\n"
                            % (ki, " ".join(str(p) for p in prios)))
            if g.index in topo.forward:
                f.write("forward\n")
            for to, via in topo.routes.get(g.index, []):
                f.write("route %s %s\n" % (to, via))
        with open(os.path.join(ndir, "kernel"), "w") as f:
            f.write(g.kind + "\n")
        # The agent's port: a virtio-serial port on a chardev whose unix
        # socket `exec` connects to.
        agent = ["-device", "virtio-serial-pci,id=vser0",
                 "-chardev", "socket,id=qga0,path=%s/qga%d.sock,"
                 "server=on,wait=off" % (self.run, g.index),
                 "-device", "virtserialport,bus=vser0.0,chardev=qga0,"
                 "name=org.qemu.guest_agent.0",
                 # The shell's console (hvc0 in the guest, lab.sh runs a
                 # shell on it), whose socket `shell` connects to.
                 "-chardev", "socket,id=con0,path=%s/con%d.sock,"
                 "server=on,wait=off" % (self.run, g.index),
                 "-device", "virtconsole,bus=vser0.0,chardev=con0,"
                 "name=rocx.shell"]
        tail = ["-m", g.mem] + fabric.nic_args(g) + agent + [
            "-append", guest.kernel_cmdline(g, len(topo.guests), "",
                                            " rocx_stay=1")]
        argv = guest.qemu_argv(qemu, "q35", g, self.run, self.sdir, ndir,
                               tail)
        with open(os.path.join(ndir, "qemu.log"), "wb") as f:
            self.qemus[name] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=f,
                stderr=subprocess.STDOUT)
        print("%s: qemu %d" % (name, self.qemus[name].pid), flush=True)

    def watch(self):
        """Until told to stop or a QEMU or the switch ends by itself."""
        while not self.stopping:
            for name, p in self.qemus.items():
                if p.poll() is not None:
                    print("%s: qemu exited with %d: ending the lab"
                          % (name, launcher.status_of(p.returncode)),
                          flush=True)
                    return 1
            if self.switch and self.switch.poll() is not None:
                print("the switch exited: ending the lab", flush=True)
                return 1
            time.sleep(POLL_S)
        return 0

    def stop(self):
        procs = [p for p in self.qemus.values() if p.poll() is None]
        for p in procs:
            p.terminate()
        deadline = time.monotonic() + TERM_GRACE_S
        for p in procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self.switch and self.switch.poll() is None:
            self.switch.terminate()
            try:
                self.switch.wait(TERM_GRACE_S)
            except subprocess.TimeoutExpired:
                self.switch.kill()
                self.switch.wait()
        if self.run:
            shutil.rmtree(self.run, ignore_errors=True)
        for name in self.qemus:
            try:
                os.unlink(os.path.join(self.sdir, name, "monitor.sock"))
            except OSError:
                pass


def supervise(sdir, path):
    """The supervisor's body: start, watch, and end everything."""
    # up has just checked the file's kernel trees.
    topo = topology.parse(path, kernels=False)
    s = Supervisor(sdir, topo)

    def on_term(signum, frame):
        s.stopping = True
        if not s.qemus:
            # Still starting: leave the start for the cleanup below.
            raise SystemExit(1)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    rc = 1
    try:
        s.start()
        rc = s.watch()
    finally:
        s.stop()
        state = load_state(sdir) or {}
        state["up"] = False
        write_json(os.path.join(sdir, "state.json"), state)
        print("lab %s: down" % topo.name, flush=True)
    return rc


# ------------------------------------------------------------- commands

def down(name):
    """End the lab: through its supervisor, or, if that is gone, what its
    state records."""
    sdir = os.path.join(LABS, name) if name else pick(None)
    state = load_state(sdir)
    if state is None:
        fail("no lab %s" % (name or ""))
    sup = state.get("supervisor", 0)
    if alive(sup):
        os.kill(sup, signal.SIGTERM)
        deadline = time.monotonic() + DOWN_WAIT_S
        while alive(sup) and time.monotonic() < deadline:
            time.sleep(0.1)
    # What a supervisor that died or hangs left: its own children, known
    # by their command lines naming the lab's socket directory.
    run = state.get("run")
    left = []
    for pid in [sup, state.get("switch")] + list(state.get("qemu", {})
                                                  .values()):
        if pid and alive(pid):
            cmd = read_text("/proc/%d/cmdline" % pid) or ""
            if pid == sup or (run and run in cmd):
                os.kill(pid, signal.SIGKILL)
                left.append(pid)
    if run:
        shutil.rmtree(run, ignore_errors=True)
    if left:
        say("lab %s: killed %s left running" % (state.get("name"), left))
    state["up"] = False
    write_json(os.path.join(sdir, "state.json"), state)
    say("lab %s: down" % state.get("name"))


def _agent_run(state, node, argv, timeout=None):
    names = list(state.get("qemu", {}))
    if node not in names:
        fail("no node %s in lab %s (nodes: %s)"
             % (node, state.get("name"), ", ".join(names)), 2)
    sock = os.path.join(state["run"], "qga%d.sock" % names.index(node))
    try:
        agent = qga.Agent(sock)
        try:
            return agent.run(argv, timeout)
        finally:
            agent.close()
    except qga.AgentError as e:
        fail("%s: %s" % (node, e), 255)


def exec_(name, node, words, timeout=None):
    """Run WORDS on NODE (bash -c, so one word may be a whole command
    line); its output on ours, its exit status returned."""
    state = load_state(pick(name))
    cmd = words[0] if len(words) == 1 else shlex.join(words)
    rc, out, err = _agent_run(state, node, ["/bin/bash", "-c", cmd], timeout)
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    return rc


def inspect(name, as_json):
    """Nodes, NICs, addresses and GIDs: the file's plan, and from each
    guest what its kernel made of it."""
    sdir = pick(name)
    state = load_state(sdir)
    topo = topology.parse(state["file"], kernels=False)
    ports = {}
    for link in topo.links:
        for end in link.ends:
            ports[end] = "switch:%d" % link.port if link.port >= 0 \
                else link.field
    nodes = []
    for g in topo.guests:
        n = topo.names[g.index]
        rc, out, err = _agent_run(state, n, ["/usr/bin/python3",
                                             INFO_SCRIPT], 60)
        if rc != 0:
            fail("%s: %s failed: %s" % (n, INFO_SCRIPT,
                                        err.decode(errors="replace")))
        live = json.loads(out)
        nics = []
        for nic in g.nics:
            mac = "52:54:00:00:%02x:%02x" % (nic.index, g.index)
            seen = live.get(mac, {})
            nics.append({"nic": "nic%d" % nic.index, "model": nic.model,
                         "mac": mac, "link": ports[(g.index, nic.index)],
                         "netdev": seen.get("netdev"),
                         "addresses": seen.get("addresses", []),
                         "ibdev": seen.get("ibdev"),
                         "gids": seen.get("gids", []),
                         "pfc": seen.get("pfc")})
        nodes.append({"name": n, "qemu": state["qemu"][n],
                      "kernel": read_text(os.path.join(sdir, n, "kernel")),
                      "memory": int(g.mem), "nics": nics})
    doc = {"name": state["name"], "file": state["file"], "state": sdir,
           "switch_ctl": state.get("ctl"), "nodes": nodes}
    if as_json:
        json.dump(doc, sys.stdout, indent=1)
        print()
        return
    print("lab %s (%s), switch control %s"
          % (doc["name"], os.path.relpath(doc["file"]), doc["switch_ctl"]))
    for n in nodes:
        print("%s: qemu %d, %s kernel, %d MiB"
              % (n["name"], n["qemu"], n["kernel"], n["memory"]))
        for c in n["nics"]:
            print("  %s %s %s on %s: %s %s%s"
                  % (c["nic"], c["model"], c["mac"], c["link"],
                     c["netdev"], " ".join(c["addresses"]),
                     "" if c["pfc"] is None else
                     ", PFC on %s" % (",".join(str(p) for p in c["pfc"])
                                      or "none")))
            for gid in c["gids"]:
                print("    %s gid %d %s %s" % (c["ibdev"], gid["index"],
                                             gid["gid"], gid["type"]))


def logs(name, node, follow):
    """NODE's serial console (its kernel and init.sh), whole; with
    FOLLOW, then what it adds until the lab goes down or an interrupt."""
    sdir = pick(name)
    state = load_state(sdir)
    if node not in state.get("qemu", {}):
        fail("no node %s in lab %s" % (node, state.get("name")), 2)
    path = os.path.join(sdir, node, "console.log")
    with open(path, "rb") as f:
        while True:
            chunk = f.read(65536)
            if chunk:
                sys.stdout.buffer.write(chunk)
                sys.stdout.flush()
                continue
            if not follow or not lab_is_up(load_state(sdir)):
                return
            try:
                time.sleep(POLL_S)
            except KeyboardInterrupt:
                return


def switch_ctl(state, words):
    """rocx-switch ctl on the lab's control socket: (status, output)."""
    if not state.get("ctl"):
        fail("lab %s has no switch" % state.get("name"))
    r = subprocess.run([os.path.join(REPO, "build/tools/rocx-switch"), "ctl",
                        state["ctl"], " ".join(words)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       check=False)
    return r.returncode, r.stdout.decode(errors="replace")


def stats(name):
    """The switch's counters (stats) and its queues (qshow)."""
    sdir = pick(name)
    state = load_state(sdir)
    for words in (["stats"], ["qshow"]):
        rc, out = switch_ctl(state, words)
        sys.stdout.write(out)
        if rc != 0:
            fail("rocx-switch ctl %s failed" % words[0])
    series = os.path.join(sdir, "series.jsonl")
    if os.path.exists(series):
        print("time series: %s" % series)


def _end(topo, word):
    """A link end as `link` takes it: (guest, nic), ("switch", port) or
    ("switch", None) for any port."""
    node, _, nic = word.partition(":")
    if node == "switch":
        if not nic:
            return ("switch", None)
        if not nic.isdigit():
            fail("bad end %s: give switch or switch:K" % word, 2)
        return ("switch", int(nic))
    if node not in topo.names:
        fail("no node %s" % node, 2)
    k = 0
    if nic:
        if not (nic.startswith("nic") and nic[3:].isdigit()):
            fail("bad end %s: give NODE or NODE:nicK" % word, 2)
        k = int(nic[3:])
    return (topo.names.index(node), k)


def link(name, a, b, how):
    """Take the link between A and B down or up.  The switch has no link
    state of its own: down is its port losing every frame both ways (the
    impairment loss=100%), up is loss=0%, any other impairment kept; the
    guests' carrier stays up, as behind a switch whose far side failed."""
    sdir = pick(name)
    state = load_state(sdir)
    topo = topology.parse(state["file"], kernels=False)
    ends = [_end(topo, a), _end(topo, b)]
    for ln in topo.links:
        mine = ln.ends + ([("switch", ln.port)] if ln.port >= 0 else [])
        if all(e in mine or (e == ("switch", None) and ln.port >= 0)
               for e in ends):
            break
    else:
        fail("no link between %s and %s" % (a, b), 2)
    if ln.port < 0:
        fail("%s is a wire: only a link to the switch goes down" % ln.field,
             2)
    loss = "100%" if how == "down" else "0%"
    rc, out = switch_ctl(state, ["impair", "port=%d" % ln.port, "dir=both",
                                 "loss=" + loss])
    if rc != 0:
        fail("rocx-switch: " + out.strip())
    say("%s (switch port %d) %s" % (ln.field, ln.port, how))


def capture_port(topo, word):
    """The switch port of NODE or NODE:nicK, and the capture's name
    (NODE, or NODE-nicK for a NIC but the first)."""
    if word.partition(":")[0] == "switch":
        fail("capture takes a node (NODE or NODE:nicK), not the switch", 2)
    gi, k = _end(topo, word)
    for ln in topo.links:
        if (gi, k) in ln.ends:
            break
    else:
        fail("%s has no nic%d" % (topo.names[gi], k), 2)
    if ln.port < 0:
        fail("%s:nic%d is on a wire (%s), not on a switch port"
             % (topo.names[gi], k, ln.field), 2)
    return ln.port, topo.names[gi] + ("-nic%d" % k if k else "")


def _capture_line(out):
    """The switch's line of one capture as {key: value}, or None."""
    for line in out.splitlines():
        head, _, why = line.partition(" why=")
        if not head.startswith("port="):
            continue
        kv = dict(w.split("=", 1) for w in head.split() if "=" in w)
        if why:
            kv["why"] = why
        return kv
    return None


def _capture_stop(state, port, label):
    """Stop the port's capture; say what it holds.  Exit 1 if it failed
    or there was none."""
    rc, out = switch_ctl(state, ["capture", "stop", "port=%d" % port])
    if rc != 0:
        fail("%s: %s" % (label, out.strip().replace("rocx-switch ctl: ",
                                                    "")))
    return _capture_done(_capture_line(out), label)


def _capture_done(kv, label):
    if kv is None:
        fail("%s: the switch did not say how the capture ended" % label)
    if kv.get("state") == "failed":
        fail("%s: the capture failed: %s (%s frames in %s)"
             % (label, kv.get("why", "?"), kv["frames"], kv["file"]))
    say("%s: %s frames, %s bytes in %s"
        % (label, kv["frames"], kv["bytes"], kv["file"]))
    return 0


def capture_node(name, node, path=None, seconds=None, stop=False):
    """A pcap of NODE's switch port: what the node sends the switch and
    what the switch sends it (the switch's capture verb,
    Documentation/rocx-switch.rst, "Capturing a port"), for SECONDS, or
    until Ctrl-C, SIGTERM or `capture NODE --stop` from another shell."""
    sdir = pick(name)
    state = load_state(sdir)
    if not state.get("ctl"):
        fail("lab %s has no switch" % state.get("name"))
    topo = topology.parse(state["file"], kernels=False)
    port, label = capture_port(topo, node)
    if stop:
        return _capture_stop(state, port, label)
    path = os.path.abspath(path) if path else \
        os.path.join(sdir, label + ".pcap")
    # A control request is blank-separated words.
    if any(c.isspace() for c in path):
        fail("capture file %r: give a path without blanks" % path, 2)
    rc, out = switch_ctl(state, ["capture", "port=%d" % port,
                                 "file=" + path])
    if rc != 0:
        fail("%s: %s" % (label, out.strip().replace("rocx-switch ctl: ",
                                                    "")))
    say("capturing %s (switch port %d) into %s; %s"
        % (label, port, path,
           "for %gs" % seconds if seconds else
           "Ctrl-C or `rocx lab capture %s --stop` ends it" % node))
    # SIGTERM ends it as Ctrl-C does, the capture stopped either way.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    deadline = time.monotonic() + seconds if seconds else None
    try:
        while deadline is None or time.monotonic() < deadline:
            time.sleep(min(CAPTURE_POLL_S, deadline - time.monotonic())
                       if deadline else CAPTURE_POLL_S)
            rc, out = switch_ctl(state, ["capture", "list",
                                         "port=%d" % port])
            kv = _capture_line(out) if rc == 0 else None
            if kv is None or kv.get("file") != path:
                # Stopped from another shell (or the lab went down):
                # that one said what it holds.
                say("%s: the capture into %s was stopped elsewhere"
                    % (label, path))
                return 0
            if kv.get("state") == "failed":
                break
    except KeyboardInterrupt:
        pass
    return _capture_stop(state, port, label)


# `shell` ends on this key (Ctrl-]), as telnet does: every other key is
# the guest's, Ctrl-C and Ctrl-D included.
ESCAPE = b"\x1d"
# With no terminal on standard input (a script feeding it), `shell`
# ends once the guest has been quiet this long after the input ended.
QUIET_S = 2


def shell(name, node):
    """An interactive shell on NODE: its console (hvc0, a bash that
    lab.sh keeps running) over the chardev's unix socket, our terminal
    raw in between."""
    state = load_state(pick(name))
    names = list(state.get("qemu", {}))
    if node not in names:
        fail("no node %s in lab %s" % (node, state.get("name")), 2)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.path.join(state["run"],
                                  "con%d.sock" % names.index(node)))
    except OSError as e:
        fail("%s: no console: %s" % (node, e.strerror))
    fd = sys.stdin.fileno()
    is_tty = os.isatty(fd)
    saved = termios.tcgetattr(fd) if is_tty else None
    if is_tty:
        print("rocx: %s's shell; Ctrl-] ends it" % node, flush=True)
        tty.setraw(fd)
        # A fresh prompt: what the shell printed before we came is gone.
        sock.sendall(b"\n")
    inputs = [fd, sock]
    try:
        while True:
            ready, _, _ = select.select(inputs, [], [],
                                        None if fd in inputs else QUIET_S)
            if not ready:
                return
            if sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                os.write(sys.stdout.fileno(), data)
            if fd in ready:
                data = os.read(fd, 4096)
                if is_tty and ESCAPE in data:
                    return
                if not data:
                    inputs.remove(fd)
                    continue
                sock.sendall(data)
    finally:
        sock.close()
        if saved is not None:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            print()
