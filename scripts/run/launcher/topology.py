# SPDX-License-Identifier: GPL-2.0
"""A lab's topology file (Documentation/lab.rst): read with python3-yaml,
checked key by key, and turned into the launcher's Guests and the
rocx-switch's arguments.

The checks walk the YAML parser's node tree rather than the Python values
it would construct: each node keeps its start mark, so every refusal can
name the file, line and column of the field it is about, and a key given
twice (which yaml.safe_load silently takes the last of) is caught."""
import dataclasses
import ipaddress
import os
import re

import yaml

from launcher import userkernel
from launcher.spec import Guest, Nic

NAME = re.compile(r"[a-z][a-z0-9-]{0,15}")
KERNELS = ("debian", "6.1", "debug")
NIC_MODELS = ("rocx", "virtio")
# -device properties the launcher sets itself.
NIC_PROPS_OURS = ("id", "netdev", "mac", "bus", "fabric")
# The rocx-switch control socket's names (Documentation/rocx-switch.rst).
QOS_PORT_KEYS = ("burst", "speed", "trust", "quanta", "pause", "backlog")
QOS_PRIO_KEYS = ("pfc", "xoff", "xon", "headroom", "reserved", "ets",
                 "kmin", "kmax", "pmax")
IMPAIR_DIRS = ("egress", "ingress")
IMPAIR_KEYS = ("loss", "duplicate", "corrupt", "delay", "jitter",
               "reorder", "gap", "limit")
# The switch serves at most this many ports (rocx-switch --ports).
MAX_PORTS = 64
# The launcher's MACs carry a guest's and a NIC's index in one byte each.
MAX_NODES = 64
MAX_NICS = 8


# Builds a scalar's value as yaml.safe_load would (YAML 1.1: on is true).
_CONSTRUCTOR = yaml.SafeLoader("")


class TopologyError(Exception):
    """A refused file: str() is "FILE:LINE:COL: FIELD: WHY"."""


@dataclasses.dataclass
class Link:
    field: str              # where the file declares it ("links[2]")
    ends: list              # [(node, nic)] for its one or two NICs
    port: int = -1          # the switch port, -1 for a wire
    switch_args: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Topology:
    path: str
    name: str
    guests: list            # launcher Guests, index = place in nodes
    names: list             # node names, by guest index
    addresses: dict         # (guest index, nic index) -> [prefix]
    links: list
    ports: int              # the switch's port count (0: no switch)
    switch_args: list       # rocx-switch options besides the ports'
    series: bool = False    # the switch writes a time series
    # (guest index, nic index) -> the priorities a rocx NIC has PFC on,
    # for the NICs whose file says (the guest sets them with dcb)
    pfc: dict = dataclasses.field(default_factory=dict)
    # guest index -> [(destination, gateway)], `ip route add` in the guest
    routes: dict = dataclasses.field(default_factory=dict)
    # guest indexes that forward IPv4 and IPv6 (a router)
    forward: set = dataclasses.field(default_factory=set)


class _Checker:
    """Walks one file's node tree; every refusal names where it is."""

    def __init__(self, path):
        self.path = path
        self.kernels = True

    def fail(self, node, field, why):
        m = node.start_mark
        raise TopologyError("%s:%d:%d: %s: %s"
                            % (self.path, m.line + 1, m.column + 1,
                               field or "(top)", why))

    def mapping(self, node, field, keys, required=()):
        """NODE's entries as {key: (key node, value node)}; refuses one
        not in KEYS (None: any), a duplicate and a missing REQUIRED."""
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, field, "must be a mapping")
        out = {}
        for k, v in node.value:
            if not isinstance(k, yaml.ScalarNode):
                self.fail(k, field, "keys must be plain words")
            key = k.value
            sub = "%s.%s" % (field, key) if field else key
            if keys is not None and key not in keys:
                self.fail(k, sub, "unknown key (known: %s)"
                          % ", ".join(keys))
            if key in out:
                self.fail(k, sub, "given twice")
            out[key] = (k, v)
        for key in required:
            if key not in out:
                self.fail(node, field, "needs %s" % key)
        return out

    def sequence(self, node, field):
        if not isinstance(node, yaml.SequenceNode):
            self.fail(node, field, "must be a list")
        return node.value

    def scalar(self, node, field):
        """NODE's value as YAML 1.1 reads it (int, float, bool or str)."""
        if not isinstance(node, yaml.ScalarNode):
            self.fail(node, field, "must be a single value")
        return _CONSTRUCTOR.construct_object(node)

    def integer(self, node, field, lo, hi):
        v = self.scalar(node, field)
        if isinstance(v, bool) or not isinstance(v, int) or \
                not lo <= v <= hi:
            self.fail(node, field, "must be a whole number %d-%d" % (lo, hi))
        return v

    def word(self, node, field):
        """A value for the switch's KEY=VALUE words: no blanks; YAML's
        on/off booleans back to the switch's on/off."""
        v = self.scalar(node, field)
        if isinstance(v, bool):
            return "on" if v else "off"
        v = str(v)
        if not v or re.search(r"\s", v):
            self.fail(node, field, "must be one word")
        return v


def _nic(c, node, field, gi, ki, addresses, pfc):
    keys = c.mapping(node, field, ("model", "props", "addresses", "pfc"))
    model = "rocx"
    if "model" in keys:
        model = c.scalar(keys["model"][1], field + ".model")
        if model not in NIC_MODELS:
            c.fail(keys["model"][1], field + ".model",
                   "must be one of %s" % ", ".join(NIC_MODELS))
    props = ""
    if "props" in keys:
        pf = field + ".props"
        for p, (pk, pv) in c.mapping(keys["props"][1], pf, None).items():
            if not re.fullmatch(r"[a-z][a-z0-9_-]*", p) or \
                    p in NIC_PROPS_OURS:
                c.fail(pk, "%s.%s" % (pf, p), "not a property one may set")
            v = c.word(pv, "%s.%s" % (pf, p))
            if "," in v:
                c.fail(pv, "%s.%s" % (pf, p), "must not hold a comma")
            props += ",%s=%s" % (p, v)
    addrs = []
    if "addresses" in keys:
        af = field + ".addresses"
        for j, a in enumerate(c.sequence(keys["addresses"][1], af)):
            s = str(c.scalar(a, "%s[%d]" % (af, j)))
            try:
                ipaddress.ip_interface(s)
            except ValueError:
                c.fail(a, "%s[%d]" % (af, j), "not an address/prefix: " + s)
            if "/" not in s:
                c.fail(a, "%s[%d]" % (af, j), "needs a /prefix length")
            addrs.append(s)
    addresses[(gi, ki)] = addrs
    if "pfc" in keys:
        pf = field + ".pfc"
        if model != "rocx":
            c.fail(keys["pfc"][0], pf, "only a rocx NIC has PFC")
        prios = []
        for j, p in enumerate(c.sequence(keys["pfc"][1], pf)):
            v = c.integer(p, "%s[%d]" % (pf, j), 0, 7)
            if v in prios:
                c.fail(p, "%s[%d]" % (pf, j), "given twice")
            prios.append(v)
        pfc[(gi, ki)] = sorted(prios)
    return Nic(ki, model, props)


def _route(c, node, field):
    """One of a node's routes: (destination, gateway), as `ip route add
    DESTINATION via GATEWAY` takes them."""
    keys = c.mapping(node, field, ("to", "via"), ("to", "via"))
    to = str(c.scalar(keys["to"][1], field + ".to"))
    if to != "default":
        try:
            net = ipaddress.ip_network(to)
        except ValueError:
            c.fail(keys["to"][1], field + ".to",
                   "not default nor a network/prefix (host bits clear): " + to)
        if "/" not in to:
            c.fail(keys["to"][1], field + ".to", "needs a /prefix length")
    via = str(c.scalar(keys["via"][1], field + ".via"))
    try:
        gw = ipaddress.ip_address(via)
    except ValueError:
        c.fail(keys["via"][1], field + ".via", "not an address: " + via)
    if to != "default" and net.version != gw.version:
        c.fail(keys["via"][1], field + ".via",
               "an IPv%d gateway for an IPv%d network"
               % (gw.version, net.version))
    return (to, via)


def _kernel(c, node, field):
    """One the launcher knows by name, or a kernel tree of one's own: a
    directory (relative to the file's), checked here against the guest's
    minimum configuration so that a tree that cannot boot a rocx guest
    starts nothing."""
    v = str(c.scalar(node, field))
    if v == "debug" and c.kernels:
        # Built as the test guests need it, all in; held to the same
        # minimum as a tree of one's own, since nothing loads a module.
        problems = userkernel.config_problems(
            userkernel.read_config(userkernel.DEBUG_CONFIG),
            userkernel.minimum()) \
            if os.path.isfile(userkernel.DEBUG_CONFIG) else []
        if problems:
            c.fail(node, field, "the debug kernel (%s) cannot boot a lab "
                   "guest (scripts/guest/minimum.config):\n  %s"
                   % (os.path.relpath(userkernel.DEBUG_CONFIG),
                      "\n  ".join(problems)))
    if v in KERNELS:
        return v
    if "/" not in v and not v.startswith("~"):
        c.fail(node, field, "must be one of %s, or a kernel tree's "
               "directory (a path: ./linux)" % ", ".join(KERNELS))
    tree = os.path.normpath(os.path.join(
        os.path.dirname(os.path.abspath(c.path)), os.path.expanduser(v)))
    problems = userkernel.tree_problems(tree) if c.kernels else []
    if problems:
        c.fail(node, field, "%s cannot boot a rocx guest "
               "(scripts/guest/minimum.config):\n  %s"
               % (tree, "\n  ".join(problems)))
    return tree


def _node(c, name, node, field, gi, addresses, pfc, plan):
    keys = c.mapping(node, field, ("memory", "kernel", "nics", "routes",
                                   "forward"), ("nics",))
    g = Guest(gi)
    if "routes" in keys:
        rf = field + ".routes"
        plan["routes"][gi] = [_route(c, r, "%s[%d]" % (rf, j)) for j, r in
                              enumerate(c.sequence(keys["routes"][1], rf))]
    if "forward" in keys:
        v = c.scalar(keys["forward"][1], field + ".forward")
        if not isinstance(v, bool):
            c.fail(keys["forward"][1], field + ".forward",
                   "must be true or false")
        if v:
            plan["forward"].add(gi)
    if "memory" in keys:
        g.mem = str(c.integer(keys["memory"][1], field + ".memory",
                              256, 65536))
    if "kernel" in keys:
        g.kernel = _kernel(c, keys["kernel"][1], field + ".kernel")
    nics = c.sequence(keys["nics"][1], field + ".nics")
    if not nics or len(nics) > MAX_NICS:
        c.fail(keys["nics"][1], field + ".nics",
               "must list 1-%d NICs" % MAX_NICS)
    for ki, n in enumerate(nics):
        g.nics.append(_nic(c, n, "%s.nics[%d]" % (field, ki), gi, ki,
                           addresses, pfc))
    return g


def _endpoint(c, node, field, names, guests):
    """A link end: ("switch", port) or (guest index, nic index)."""
    s = str(c.scalar(node, field))
    m = re.fullmatch(r"switch:([0-9]+)", s)
    if m:
        port = int(m.group(1))
        if port >= MAX_PORTS:
            c.fail(node, field, "the switch has ports 0-%d" % (MAX_PORTS - 1))
        return ("switch", port)
    m = re.fullmatch(r"([a-z][a-z0-9-]*):nic([0-9]+)", s)
    if not m:
        c.fail(node, field, "must be NODE:nicK or switch:K, not " + s)
    if m.group(1) not in names:
        c.fail(node, field, "no node " + m.group(1))
    gi = names.index(m.group(1))
    ki = int(m.group(2))
    if ki >= len(guests[gi].nics):
        c.fail(node, field, "node %s has no nic%d" % (m.group(1), ki))
    return (gi, ki)


def _switch_words(c, keys, field, port):
    """A switch link's settings as rocx-switch --qos and --impair
    arguments for PORT."""
    args = []
    words = []
    if "rate" in keys:
        words.append("rate=%d" % c.integer(keys["rate"][1], field + ".rate",
                                           1, 10000000))
    if "qos" in keys:
        qf = field + ".qos"
        for k, (_, v) in c.mapping(keys["qos"][1], qf,
                                   QOS_PORT_KEYS).items():
            words.append("%s=%s" % (k, c.word(v, "%s.%s" % (qf, k))))
    if words:
        args += ["--qos", "port=%d %s" % (port, " ".join(words))]
    if "prio" in keys:
        pf = field + ".prio"
        for p, (pk, pv) in c.mapping(keys["prio"][1], pf, None).items():
            if not re.fullmatch(r"[0-7]|all", p):
                c.fail(pk, "%s.%s" % (pf, p), "a priority is 0-7 or all")
            sub = "%s.%s" % (pf, p)
            w = ["%s=%s" % (k, c.word(v, "%s.%s" % (sub, k)))
                 for k, (_, v) in c.mapping(pv, sub, QOS_PRIO_KEYS).items()]
            if w:
                args += ["--qos", "port=%d prio=%s %s"
                         % (port, p, " ".join(w))]
    if "impair" in keys:
        imf = field + ".impair"
        for d, (_, dv) in c.mapping(keys["impair"][1], imf,
                                    IMPAIR_DIRS).items():
            sub = "%s.%s" % (imf, d)
            w = ["%s=%s" % (k, c.word(v, "%s.%s" % (sub, k)))
                 for k, (_, v) in c.mapping(dv, sub, IMPAIR_KEYS).items()]
            if w:
                args += ["--impair", "port=%d dir=%s %s"
                         % (port, d, " ".join(w))]
    return args


def _links(c, node, names, guests):
    links = []
    used = {}
    ports = {}
    for i, ln in enumerate(c.sequence(node, "links")):
        field = "links[%d]" % i
        keys = c.mapping(ln, field, ("endpoints", "rate", "qos", "prio",
                                     "impair"), ("endpoints",))
        en = keys["endpoints"][1]
        ends = c.sequence(en, field + ".endpoints")
        if len(ends) != 2:
            c.fail(en, field + ".endpoints", "must name two ends")
        got = [_endpoint(c, e, "%s.endpoints[%d]" % (field, j), names,
                         guests) for j, e in enumerate(ends)]
        sw = [e for e in got if e[0] == "switch"]
        nics = [e for e in got if e[0] != "switch"]
        if len(sw) == 2:
            c.fail(en, field + ".endpoints", "joins the switch to itself")
        for j, e in enumerate(got):
            if e in used:
                c.fail(ends[j], "%s.endpoints[%d]" % (field, j),
                       "already on %s" % used[e])
            used[e] = field
        link = Link(field, nics)
        if sw:
            link.port = sw[0][1]
            ports[link.port] = field
            link.switch_args = _switch_words(c, keys, field, link.port)
        else:
            for k in ("rate", "qos", "prio", "impair"):
                if k in keys:
                    c.fail(keys[k][0], "%s.%s" % (field, k),
                           "only a link to the switch has settings")
        links.append(link)
    for g in guests:
        for nic in g.nics:
            if (g.index, nic.index) not in used:
                c.fail(node, "links", "%s:nic%d is on no link"
                       % (names[g.index], nic.index))
    for p in range(len(ports)):
        if p not in ports:
            c.fail(node, "links", "switch:%d is on no link: the ports "
                   "are numbered from 0 without a gap" % p)
    return links, len(ports)


def _switch(c, node, topo_name):
    keys = c.mapping(node, "switch", ("buffer", "queue_limit", "seed",
                                      "series", "series_interval"))
    args = []
    series = False
    if "buffer" in keys:
        args += ["--buffer", str(c.integer(keys["buffer"][1],
                                           "switch.buffer", 0, 1 << 31))]
    if "queue_limit" in keys:
        args += ["--queue-limit", str(c.integer(
            keys["queue_limit"][1], "switch.queue_limit", 1, 1 << 20))]
    if "seed" in keys:
        args += ["--seed", str(c.integer(keys["seed"][1], "switch.seed",
                                         0, (1 << 63) - 1))]
    if "series" in keys:
        series = c.scalar(keys["series"][1], "switch.series")
        if not isinstance(series, bool):
            c.fail(keys["series"][1], "switch.series", "must be true or false")
    if "series_interval" in keys:
        if not series:
            c.fail(keys["series_interval"][0], "switch.series_interval",
                   "needs series: true")
        args += ["--series-interval", c.word(keys["series_interval"][1],
                                             "switch.series_interval")]
    return args, series


def parse(path, text=None, kernels=True):
    """PATH's topology (TEXT if given, else the file's contents); raises
    TopologyError naming where the file is wrong.  KERNELS false skips
    the check of kernel trees against the minimum configuration: a lab
    that is up keeps its kernels while their trees are rebuilt, and its
    commands read the file again."""
    if text is None:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise TopologyError("%s: %s" % (path, e.strerror)) from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as e:
        m = e.problem_mark or e.context_mark
        raise TopologyError("%s:%d:%d: %s" % (path, m.line + 1, m.column + 1,
                                              e.problem or e.context)) \
            from None
    except yaml.YAMLError as e:
        raise TopologyError("%s: %s" % (path, e)) from None
    c = _Checker(path)
    c.kernels = kernels
    if root is None:
        raise TopologyError("%s:1:1: (top): the file is empty" % path)
    top = c.mapping(root, "", ("name", "nodes", "switch", "links"),
                    ("nodes", "links"))
    name = os.path.splitext(os.path.basename(path))[0]
    if "name" in top:
        name = str(c.scalar(top["name"][1], "name"))
        if not NAME.fullmatch(name):
            c.fail(top["name"][1], "name", "must be 1-16 of a-z, 0-9 and -, "
                   "starting with a letter")
    names = []
    guests = []
    addresses = {}
    pfc = {}
    plan = {"routes": {}, "forward": set()}
    nodes = c.mapping(top["nodes"][1], "nodes", None)
    if not nodes or len(nodes) > MAX_NODES:
        c.fail(top["nodes"][1], "nodes", "must hold 1-%d nodes" % MAX_NODES)
    for n, (k, v) in nodes.items():
        if not NAME.fullmatch(n):
            c.fail(k, "nodes." + n, "a node's name is 1-16 of a-z, 0-9 and "
                   "-, starting with a letter")
        names.append(n)
        guests.append(_node(c, n, v, "nodes." + n, len(guests), addresses,
                            pfc, plan))
    links, ports = _links(c, top["links"][1], names, guests)
    switch_args, series = [], False
    if "switch" in top:
        if not ports:
            c.fail(top["switch"][0], "switch", "no link reaches the switch")
        switch_args, series = _switch(c, top["switch"][1], name)
    return Topology(path, name, guests, names, addresses, links, ports,
                    switch_args, series, pfc, plan["routes"],
                    plan["forward"])
