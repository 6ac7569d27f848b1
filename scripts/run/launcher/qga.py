# SPDX-License-Identifier: GPL-2.0
"""A client of QEMU's guest agent (qemu-ga) on a unix-socket chardev:
just what `rocx lab exec` needs, guest-exec and its status.

The agent speaks QMP-style JSON, one object per line.  A connection may
find an answer still queued from a client that went away mid-request, so
every session starts with guest-sync-delimited: the agent first resets
its parser on a 0xff byte, and its answer to the sync comes after a 0xff
of its own, with the random id we sent; anything before it is stale."""
import base64
import json
import random
import socket
import time

# How long one answer of the agent may take; a command's own run time is
# not bounded by it (exec polls).
ANSWER_S = 30


class AgentError(Exception):
    """The agent did not answer, or answered with an error."""


class Agent:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(ANSWER_S)
        try:
            self.sock.connect(path)
        except OSError as e:
            raise AgentError("cannot reach the agent at %s: %s"
                             % (path, e.strerror)) from None
        self.buf = b""
        self._sync()

    def close(self):
        self.sock.close()

    def _send(self, obj):
        self.sock.sendall(json.dumps(obj).encode() + b"\n")

    def _line(self):
        while b"\n" not in self.buf:
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise AgentError("the agent did not answer in %ds"
                                 % ANSWER_S) from None
            if not chunk:
                raise AgentError("the agent closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def _sync(self):
        sync_id = random.randrange(1, 1 << 31)
        self.sock.sendall(b"\xff")
        self._send({"execute": "guest-sync-delimited",
                    "arguments": {"id": sync_id}})
        while True:
            line = self._line()
            if b"\xff" not in line:
                continue
            try:
                if json.loads(line.rsplit(b"\xff", 1)[1]).get("return") \
                        == sync_id:
                    return
            except ValueError:
                continue

    def call(self, execute, arguments=None):
        """The agent's "return" for one command."""
        req = {"execute": execute}
        if arguments is not None:
            req["arguments"] = arguments
        self._send(req)
        while True:
            line = self._line().strip(b"\xff \r")
            if not line:
                continue
            ans = json.loads(line)
            if "error" in ans:
                raise AgentError("%s: %s" % (execute, ans["error"].get(
                    "desc", ans["error"])))
            if "return" in ans:
                return ans["return"]

    def run(self, argv, timeout=None):
        """Run ARGV in the guest; (exit status, stdout bytes, stderr
        bytes), the status 128 + N for a command ended by signal N, as a
        shell gives it.  TIMEOUT (seconds) ends the wait with an error."""
        pid = self.call("guest-exec", {"path": argv[0], "arg": argv[1:],
                                       "capture-output": True})["pid"]
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.02
        while True:
            st = self.call("guest-exec-status", {"pid": pid})
            if st.get("exited"):
                break
            if deadline is not None and time.monotonic() > deadline:
                raise AgentError("%s still running after %ss"
                                 % (argv[0], timeout))
            time.sleep(pause)
            pause = min(pause * 2, 0.2)
        out = base64.b64decode(st.get("out-data", ""))
        err = base64.b64decode(st.get("err-data", ""))
        if "signal" in st:
            return 128 + st["signal"], out, err
        return st.get("exitcode", 255), out, err
