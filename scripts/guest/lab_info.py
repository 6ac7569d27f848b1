# SPDX-License-Identifier: GPL-2.0
"""What a lab guest's kernel made of its NICs, for `rocx lab inspect`:
{MAC: {netdev, addresses, ibdev, gids, pfc}} as JSON.  Read from sysfs and
`ip -j addr`, in the guest, so that it shows what is there rather than
what the topology file asked for."""
import json
import os
import subprocess
import sys

NET = "/sys/class/net"
IB = "/sys/class/infiniband"


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def gids(ibdev):
    """Port 1's non-zero GIDs, with their type and netdev."""
    port = os.path.join(IB, ibdev, "ports/1")
    out = []
    for i in sorted(int(x) for x in os.listdir(os.path.join(port, "gids"))):
        gid = read(os.path.join(port, "gids", str(i)))
        if gid is None or gid.replace("0", "").replace(":", "") == "":
            continue
        out.append({"index": i, "gid": gid,
                    "type": read(os.path.join(port, "gid_attrs/types",
                                              str(i))),
                    "netdev": read(os.path.join(port, "gid_attrs/ndevs",
                                                str(i)))})
    return out


def pfc(dev):
    """The priorities DEV has PFC on, from `dcb pfc show` ("prio-pfc
    0:off 1:off 2:off 3:on ..."); None where the netdev has no DCB."""
    r = subprocess.run(["dcb", "pfc", "show", "dev", dev, "prio-pfc"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       check=False)
    if r.returncode != 0:
        return None
    return [int(w.split(":")[0]) for w in r.stdout.decode().split()
            if w.endswith(":on") and w.split(":")[0].isdigit()]


def main():
    addrs = {}
    ip = subprocess.run(["ip", "-j", "addr"], stdout=subprocess.PIPE,
                        check=True)
    for link in json.loads(ip.stdout):
        addrs[link["ifname"]] = ["%s/%d" % (a["local"], a["prefixlen"])
                                 for a in link.get("addr_info", [])
                                 if a.get("scope") == "global"]
    # An ib_device's netdev: the one its port's GIDs name.
    ib_of = {}
    for ibdev in sorted(os.listdir(IB)) if os.path.isdir(IB) else ():
        for g in gids(ibdev):
            if g["netdev"]:
                ib_of.setdefault(g["netdev"], ibdev)
    info = {}
    for dev in sorted(os.listdir(NET)):
        mac = read(os.path.join(NET, dev, "address"))
        if dev == "lo" or not mac:
            continue
        ibdev = ib_of.get(dev)
        info[mac] = {"netdev": dev, "addresses": addrs.get(dev, []),
                     "ibdev": ibdev,
                     "gids": [{k: g[k] for k in ("index", "gid", "type")}
                              for g in gids(ibdev) if g["netdev"] == dev]
                     if ibdev else [],
                     "pfc": pfc(dev) if ibdev else None}
    json.dump(info, sys.stdout)


main()
