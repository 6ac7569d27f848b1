# SPDX-License-Identifier: GPL-2.0
"""rocx lab's topology files (scripts/run/launcher/topology.py), with no
guest booted: the examples in lab/ read as Documentation/lab.rst says,
and every kind of mistake is refused with the line, column and field it
is at.  tests/check/selftest.sh runs it; prints one "ok - NAME" or
"not ok - NAME" line per check."""
import os
import subprocess
import sys
import tempfile

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")
sys.path.insert(0, os.path.join(REPO, "scripts/run"))
from launcher import topology  # noqa: E402

bad = 0


def check(name, got, want):
    global bad
    if got == want:
        print("ok - lab: " + name)
    else:
        print("not ok - lab: %s (got %r, want %r)" % (name, got, want))
        bad += 1


def refusal(text):
    """The refusal of TEXT, or "accepted"."""
    try:
        topology.parse("t.yaml", text)
    except topology.TopologyError as e:
        return str(e)
    return "accepted"


t = topology.parse(os.path.join(REPO, "lab/two-hosts.yaml"))
check("two-hosts: nodes and switch ports", (t.name, t.names, t.ports),
      ("two-hosts", ["a", "b"], 2))
check("two-hosts: addresses by node and NIC", t.addresses[(1, 0)],
      ["198.18.0.2/24", "fd00::2/64"])
t = topology.parse(os.path.join(REPO, "lab/incast.yaml"))
check("incast: the bottleneck's settings as the switch's --qos",
      t.links[2].switch_args,
      ["--qos", "port=2 rate=100",
       "--qos", "port=2 prio=3 pfc=on kmin=20000 kmax=80000 pmax=0.2"])
check("incast: switch options", (t.switch_args, t.series),
      (["--buffer", "1000000"], True))
t = topology.parse("t.yaml", """
nodes:
  a: {memory: 512, kernel: 6.1, nics: [{model: virtio, props: {mtu: 9000}}]}
  b: {nics: [{}, {}]}
links:
  - endpoints: [a:nic0, b:nic1]
  - endpoints: [switch:0, b:nic0]
    impair: {egress: {loss: 1%, delay: 2ms}}
""")
check("a wire, a NIC's properties, a kernel and impairments",
      (t.links[0].port, t.guests[0].nics[0].props, t.guests[0].kernel,
       t.guests[0].mem, t.links[1].switch_args, t.name),
      (-1, ",mtu=9000", "6.1", "512",
       ["--impair", "port=0 dir=egress loss=1% delay=2ms"], "t"))

ONE = "nodes:\n  a:\n    nics: [{}]\nlinks:\n  - endpoints: [a:nic0, switch:0]\n"
cases = [
    ("a YAML syntax error", "nodes: [\n", "t.yaml:2:1: "),
    ("an empty file", "", "t.yaml:1:1: (top): the file is empty"),
    ("an unknown top-level key", ONE + "swich: {}\n",
     "t.yaml:6:1: swich: unknown key"),
    ("an unknown node key", ONE.replace("    nics", "    memroy: 1\n    nics"),
     "t.yaml:3:5: nodes.a.memroy: unknown key"),
    ("a node given twice", ONE.replace("nodes:\n", "nodes:\n  a: {nics: []}\n"),
     "t.yaml:3:3: nodes.a: given twice"),
    ("a bad node name", ONE.replace("  a:", "  A:"), "t.yaml:2:3: nodes.A: "),
    ("a node without NICs", "nodes:\n  a: {memory: 512}\nlinks: []\n",
     "t.yaml:2:6: nodes.a: needs nics"),
    ("an unknown NIC model", ONE.replace("{}", "{model: e1000}"),
     "t.yaml:3:20: nodes.a.nics[0].model: must be one of"),
    ("memory that is no number", ONE.replace("    nics", "    memory: 1G\n    nics"),
     "t.yaml:3:13: nodes.a.memory: must be a whole number"),
    ("a kernel the launcher does not know",
     ONE.replace("    nics", "    kernel: /boot/x\n    nics"),
     "t.yaml:3:13: nodes.a.kernel: must be one of"),
    ("an address without its prefix",
     ONE.replace("{}", "{addresses: [198.18.0.1]}"),
     "t.yaml:3:25: nodes.a.nics[0].addresses[0]: needs a /prefix length"),
    ("an address that is none",
     ONE.replace("{}", "{addresses: [198.18.0.300/24]}"),
     "t.yaml:3:25: nodes.a.nics[0].addresses[0]: not an address"),
    ("a property the launcher sets", ONE.replace("{}", "{props: {mac: x}}"),
     "t.yaml:3:21: nodes.a.nics[0].props.mac: not a property"),
    ("an endpoint on a node that is not there",
     ONE.replace("[a:nic0", "[c:nic0"),
     "t.yaml:5:17: links[0].endpoints[0]: no node c"),
    ("an endpoint on a NIC the node lacks",
     ONE.replace("[a:nic0", "[a:nic1"),
     "t.yaml:5:17: links[0].endpoints[0]: node a has no nic1"),
    ("a NIC on no link", ONE.replace("{}", "{}, {}"),
     "t.yaml:5:3: links: a:nic1 is on no link"),
    ("a NIC on two links", ONE + "  - endpoints: [a:nic0, switch:1]\n",
     "t.yaml:6:17: links[1].endpoints[0]: already on links[0]"),
    ("a gap in the switch's ports", ONE.replace("switch:0", "switch:1"),
     "t.yaml:5:3: links: switch:0 is on no link"),
    ("a QoS key the switch does not know",
     ONE + "    prio: {3: {pfc: on, xof: 1}}\n",
     "t.yaml:6:25: links[0].prio.3.xof: unknown key"),
    ("a priority out of range", ONE + "    prio: {9: {pfc: on}}\n",
     "t.yaml:6:12: links[0].prio.9: a priority is 0-7 or all"),
    ("a rate that is no number", ONE + "    rate: fast\n",
     "t.yaml:6:11: links[0].rate: must be a whole number"),
    ("a value of two words", ONE + "    impair: {egress: {delay: 2 ms}}\n",
     "t.yaml:6:30: links[0].impair.egress.delay: must be one word"),
    ("settings on a wire",
     "nodes:\n  a: {nics: [{}]}\n  b: {nics: [{}]}\nlinks:\n"
     "  - endpoints: [a:nic0, b:nic0]\n    rate: 100\n",
     "t.yaml:6:5: links[0].rate: only a link to the switch has settings"),
    ("switch settings with no switch",
     "nodes:\n  a: {nics: [{}]}\n  b: {nics: [{}]}\nswitch: {buffer: 1}\n"
     "links:\n  - endpoints: [a:nic0, b:nic0]\n",
     "t.yaml:4:1: switch: no link reaches the switch"),
]
for name, text, want in cases:
    got = refusal(text)
    check("refused: " + name, got[:len(want)], want)

# Through the command: a refused file starts nothing, not even the lab's
# state directory.
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "lab-refused.yaml")
    with open(path, "w") as f:
        f.write("name: lab-refused\n" + ONE.replace("{}", "{model: x}"))
    r = subprocess.run([os.path.join(REPO, "scripts/rocx"), "lab", "up",
                        path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    check("rocx lab up refuses it with its line, exit 2",
          (r.returncode, r.stderr.decode().split(": ")[0]),
          (2, "rocx"))
    check("... naming file, line and field",
          r.stderr.decode().split(": ", 1)[1].split(": must")[0],
          path + ":4:20: nodes.a.nics[0].model")
    check("... and starts nothing",
          os.path.exists(os.path.join(REPO, "build/lab/lab-refused")), False)

sys.exit(1 if bad else 0)
