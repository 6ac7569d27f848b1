# SPDX-License-Identifier: GPL-2.0
"""rocx-switch's control socket (tools/rocx-switch/ctl_server.c) for the
Python tests: a request is one line; its answer is zero or more lines, then
"ok" or "error: WHY".  `rocx-switch ctl SOCKET CMD...` is the same from a
shell."""
import socket


class CtlError(Exception):
    pass


def prob(text):
    """A probability as the switch prints it ("1%") as a fraction."""
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def seconds(text):
    """A time as the switch prints it ("2ms", "500us", "7ns") in seconds."""
    for unit, scale in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9),
                        ("s", 1.0)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    raise ValueError(text)


class SwitchCtl:
    def __init__(self, path, timeout=10):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.f = self.s.makefile("rb")

    def close(self):
        self.f.close()
        self.s.close()

    def send_raw(self, data):
        self.s.sendall(data)

    def answer(self):
        """(ok, output lines, error or None) of the next answer."""
        out = []
        while True:
            line = self.f.readline()
            if not line:
                raise CtlError("the switch closed the connection")
            line = line.decode().rstrip("\n")
            if line == "ok":
                return True, out, None
            if line.startswith("error: "):
                return False, out, line[len("error: "):]
            out.append(line)

    def request(self, line):
        self.send_raw(line.encode() + b"\n")
        return self.answer()

    def __call__(self, line):
        """The output lines of a request that must succeed."""
        ok, out, err = self.request(line)
        if not ok:
            raise CtlError(f"{line}: {err}")
        return out

    def show(self, sel=""):
        """{(port, dir): {key: value}} from `show`."""
        res = {}
        for line in self(f"show {sel}"):
            words = line.split()
            res[(int(words[0][4:]), words[1])] = \
                dict(w.split("=", 1) for w in words[2:])
        return res

    def stats(self, sel=""):
        """{port: {key: value}} from `stats`."""
        res = {}
        for line in self(f"stats {sel}"):
            words = line.split()
            if words[1].startswith("port"):
                res[int(words[1][4:])] = dict(w.split("=", 1)
                                              for w in words[2:])
        return res

    def qshow(self, sel=""):
        """{(port, prio): {key: value}} from `qshow`, prio None for the
        port's own line."""
        res = {}
        for line in self(f"qshow {sel}"):
            words = line.split()
            if not words[0].startswith("port"):
                continue
            port = int(words[0][4:])
            if words[1].startswith("prio"):
                res[(port, int(words[1][4:]))] = \
                    dict(w.split("=", 1) for w in words[2:])
            else:
                res[(port, None)] = dict(w.split("=", 1) for w in words[1:])
        return res
