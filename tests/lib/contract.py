# SPDX-License-Identifier: GPL-2.0-or-later
"""The device contract's constants for the Python tests, read from the
headers in include/rocx/ so that no test keeps a copy of its own.

    import contract
    F = contract.load("rocx_fabric.h")
    F.ROCX_FAB_ETHERTYPE                  # 0x88b6
    F.ROCX_FAB_DST_MAC                    # b'\\x01\\x80\\xc2\\x00\\x00\\x0e'
    F.layout("rocx_fab_hdr")["count"]     # (offset, size) in the struct
    F.sizeof("rocx_fab_hdr")              # 12

Understood: object-like #defines whose value is an integer expression
(literals, earlier names, ROCX_BIT/ROCX_GENMASK, arithmetic), a string
literal or a brace list of bytes; enum members, explicit or counted on;
structs of the contract's fixed-width fields, laid out as C does.
Anything else (function-like macros, casts) is skipped, and a test that
asks for a name the header does not define fails with AttributeError.
"""
import ast
import operator
import os
import re

INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "..", "..", "include", "rocx")

_TYPES = {"__u8": 1, "__u16": 2, "__u32": 4, "__u64": 8,
          "__le16": 2, "__le32": 4, "__le64": 8,
          "__be16": 2, "__be32": 4, "__be64": 8}

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub,
           ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift,
           ast.BitOr: operator.or_, ast.BitAnd: operator.and_,
           ast.BitXor: operator.xor}


def _genmask(h, low):
    return ((1 << (h + 1)) - 1) & ~((1 << low) - 1)


_FUNCS = {"ROCX_BIT": lambda n: 1 << n, "ROCX_BIT_ULL": lambda n: 1 << n,
          "ROCX_GENMASK": _genmask, "ROCX_GENMASK_ULL": _genmask}


def _eval(node, names):
    if isinstance(node, ast.Expression):
        return _eval(node.body, names)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, names),
                                      _eval(node.right, names))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return ~_eval(node.operand, names)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and
            node.func.id in _FUNCS and not node.keywords):
        return _FUNCS[node.func.id](*[_eval(a, names) for a in node.args])
    raise ValueError("not a constant")


def _value(text, names):
    """A #define's or enum member's value, or None if not understood."""
    text = text.strip()
    m = re.fullmatch(r'"([^"\\]*)"', text)
    if m:
        return m.group(1)
    m = re.fullmatch(r"\{([^}]*)\}", text)
    if m:
        try:
            return bytes(_value(x, names) for x in m.group(1).split(","))
        except (TypeError, ValueError):
            return None
    # C integer suffixes and division; Python's ast does the rest.
    text = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", text)
    text = text.replace("/", "//")
    try:
        return _eval(ast.parse(text, mode="eval"), names)
    except (SyntaxError, ValueError, TypeError, KeyError):
        return None


class Header:
    """One contract header: its constants as attributes."""

    def __init__(self, name):
        self.path = os.path.join(INCLUDE, name)
        with open(self.path) as f:
            src = f.read()
        # Comments out, continuation lines joined.
        src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
        src = re.sub(r"//[^\n]*", "", src)
        src = src.replace("\\\n", " ")
        self._names = {}
        self._structs = {}
        # What the header includes of the contract comes first.
        for inc in re.findall(r'^[ \t]*#[ \t]*include[ \t]+"(rocx_\w+\.h)"',
                              src, flags=re.M):
            self._names.update(load(inc)._names)
            self._structs.update(load(inc)._structs)
        for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)"
                             r"(\(?)([^\n]*)", src, flags=re.M):
            if m.group(2):
                continue        # function-like
            v = _value(m.group(3), self._names)
            if v is not None:
                self._names[m.group(1)] = v
        for m in re.finditer(r"\benum\s+\w*\s*\{([^}]*)\}", src):
            nxt = 0
            for item in m.group(1).split(","):
                if not item.strip():
                    continue
                name, _, val = item.partition("=")
                v = _value(val, self._names) if val else nxt
                if v is None:
                    raise ValueError(f"{self.path}: enum {item.strip()}")
                self._names[name.strip()] = v
                nxt = v + 1
        for m in re.finditer(r"\bstruct\s+(\w+)\s*\{([^}]*)\}\s*;", src):
            self._structs[m.group(1)] = m.group(2)

    def __getattr__(self, name):
        try:
            return self.__dict__["_names"][name]
        except KeyError:
            raise AttributeError(f"{name} is not defined in "
                                 f"{self.__dict__.get('path')}") from None

    def layout(self, struct):
        """{field: (offset, size)} of a struct of fixed-width fields (and
        arrays of them), with C's natural alignment."""
        body = self._structs[struct]
        out, off, align = {}, 0, 1
        for decl in body.split(";"):
            decl = decl.strip()
            if not decl:
                continue
            m = re.fullmatch(r"(struct\s+)?(\w+)\s+(\w+)\s*"
                             r"(?:\[\s*([^\]]*)\s*\])?", decl)
            if m and m.group(1) and m.group(2) in self._structs:
                size, falign = self.sizeof(m.group(2)), \
                    self._align(m.group(2))
            elif m and not m.group(1) and m.group(2) in _TYPES:
                size = falign = _TYPES[m.group(2)]
            else:
                raise ValueError(f"{self.path}: struct {struct}: {decl}")
            n = 1
            if m.group(4) is not None:
                n = _value(m.group(4), self._names) if m.group(4) else 0
            off = (off + falign - 1) // falign * falign
            out[m.group(3)] = (off, size * n)
            off += size * n
            align = max(align, falign)
        out[""] = ((off + align - 1) // align * align, align)
        return out

    def _align(self, struct):
        return self.layout(struct)[""][1]

    def sizeof(self, struct):
        return self.layout(struct)[""][0]


_cache = {}


def load(name):
    """The constants of include/rocx/<name>, parsed once."""
    if name not in _cache:
        _cache[name] = Header(name)
    return _cache[name]


def self_check():
    """Every struct the parser can lay out has the size the header's own
    ROCX_ASSERT_SIZE gives it (the C compilers check the same), and the
    fabric module's layout checks pass.  Returns the number of structs
    compared; raises AssertionError on the first disagreement."""
    n = 0
    for name in sorted(os.listdir(INCLUDE)):
        if not name.endswith(".h"):
            continue
        h = load(name)
        with open(h.path) as f:
            src = f.read()
        for m in re.finditer(r"ROCX_ASSERT_SIZE\(struct (\w+),\s*([^;]*)\);",
                             src):
            want = _value(m.group(2), h._names)
            try:
                got = h.sizeof(m.group(1))
            except ValueError:
                continue        # unions and the like: not for the tests
            assert got == want, f"{name}: struct {m.group(1)}: " \
                f"{got} bytes here, {want} in the header"
            n += 1
    import fabric  # noqa: F401  (its import-time asserts)
    return n


if __name__ == "__main__":
    print(f"contract.py: {self_check()} struct sizes agree with the headers")
