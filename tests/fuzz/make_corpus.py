#!/usr/bin/env python3
"""Writes the hand-made seeds of tests/fuzz/corpus/: tiny ELF images shaped like Go binaries
(a few functions with Go's stack-check prologue, a .gopclntab in the 1.16, 1.18 and 1.20 layouts,
.symtab or not, build notes, .go.buildinfo) with small Go-style DWARF (abstract and concrete
subprograms, nested inlined calls, lexical blocks, ranges, runtime.g/runtime.stack types), plain,
SHF_COMPRESSED or .zdebug_*, for x86-64 and arm64, fixed-address and PIE. A few hundred bytes to a
few KB each, so the fuzzer runs thousands of them a second.

With --toolchains it also builds, with the compilers installed here (the committed files were
made by gcc 12 and Go 1.19/1.23/1.25/1.27 on Debian 12, the last two from /opt/gate-go): C programs
with inlined calls in DWARF 5 and zlib-compressed DWARF 4 (gcc -O2), a tiny Go program stripped
(-s -w, functions from .gopclntab only; ~1 MB; Go 1.23 and 1.27) and the .debug_* sections of the
same program built with DWARF (a real Go runtime's DWARF, ~0.2 MB: DWARF 4 from Go 1.19, DWARF 5
from Go 1.25).

Usage: tests/fuzz/make_corpus.py [--toolchains] [OUT_DIR]   (default: tests/fuzz/corpus)
Deterministic for the hand-made seeds: rerunning rewrites the same bytes.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

# ---- ELF constants ---------------------------------------------------------------------------
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOTE, SHT_NOBITS = 1, 2, 3, 7, 8
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR, SHF_COMPRESSED = 1, 2, 4, 0x800
PT_LOAD, PF_X, PF_W, PF_R = 1, 1, 2, 4
EM_X86_64, EM_AARCH64 = 62, 183
ET_EXEC, ET_DYN = 2, 3
STT_FUNC, STB_GLOBAL = 2, 1


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def align(n, a):
    return (n + a - 1) // a * a


class Section:
    def __init__(self, name, type_, flags, data, addr=0, link=0, info=0, entsize=0, addralign=1):
        self.name, self.type, self.flags, self.data = name, type_, flags, data
        self.addr, self.link, self.info, self.entsize, self.addralign = addr, link, info, entsize, addralign
        self.offset = 0


def write_elf(path, machine, etype, sections, segments):
    """sections: list of Section (index 1..n); segments: list of (flags, [section names]): one
    PT_LOAD over those sections. Sections are packed in file order, so a segment's vaddr - offset
    differs from the others' (what a PIE data segment looks like to the file-offset mapping)."""
    shstr = bytearray(b"\0")
    names = {}
    for s in sections + [Section(".shstrtab", SHT_STRTAB, 0, b"")]:
        names[s.name] = len(shstr)
        shstr += s.name.encode() + b"\0"
    shstrtab = Section(".shstrtab", SHT_STRTAB, 0, bytes(shstr))
    all_sections = sections + [shstrtab]
    phnum = len(segments)
    off = 64 + 56 * phnum
    for s in all_sections:
        off = align(off, max(s.addralign, 1))
        s.offset = off
        if s.type != SHT_NOBITS:
            off += len(s.data)
    shoff = align(off, 8)
    by_name = {s.name: s for s in all_sections}
    phdrs = b""
    for flags, members in segments:
        ms = [by_name[m] for m in members]
        lo = min(s.offset for s in ms)
        vlo = min(s.addr for s in ms)
        filesz = max(s.offset + (0 if s.type == SHT_NOBITS else len(s.data)) for s in ms) - lo
        memsz = max(s.addr + len(s.data) for s in ms) - vlo
        phdrs += struct.pack("<IIQQQQQQ", PT_LOAD, flags, lo, vlo, vlo, filesz, memsz, 0x1000)
    ehdr = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + b"\0" * 9, etype, machine, 1,
                       by_name[".text"].addr, 64, shoff, 0, 64, 56, phnum, 64, len(all_sections) + 1,
                       len(all_sections))
    img = bytearray(ehdr + phdrs)
    for s in all_sections:
        img += b"\0" * (s.offset - len(img))
        if s.type != SHT_NOBITS:
            img += s.data
    img += b"\0" * (shoff - len(img))
    img += b"\0" * 64  # section 0
    for s in all_sections:
        img += struct.pack("<IIQQQQIIQQ", names[s.name], s.type, s.flags, s.addr, s.offset,
                           len(s.data), s.link, s.info, s.addralign, s.entsize)
    with open(path, "wb") as f:
        f.write(img)
    return len(img)


# ---- code ------------------------------------------------------------------------------------
def x86_code(base):
    """main.f (stack check, RET, morestack block), main.g (leaf), main.h (tail jump),
    runtime.morestack_noctxt.abi0. Returns (bytes, [(name, addr, size)])."""
    f = base
    body = bytes.fromhex("493b6610")  # cmp 0x10(%r14),%rsp
    body += bytes.fromhex("760a")  # jbe +10 -> morestack block
    body += bytes.fromhex("55" "4889e5" "48b8c3c3c3c3c3c3c3c3" "5d")  # push; mov; movabs with 0xc3s; pop
    ret_at = len(body)
    body += b"\xc3"  # ret
    ms_block = len(body)
    # fix the jbe displacement to the morestack block
    body = body[:5] + bytes([ms_block - 6]) + body[6:]
    call_at = len(body)
    body += b"\xe8" + b"\0\0\0\0"  # call runtime.morestack_noctxt (patched below)
    body += b"\xeb" + bytes([(-(len(body) + 2)) & 0xFF])  # jmp main.f
    f_size = len(body)
    code = bytearray(body)
    code += b"\xcc" * (align(len(code), 16) - len(code))
    g = base + len(code)
    code += bytes.fromhex("b801000000c3")  # mov $1,%eax; ret
    g_size = 6
    code += b"\xcc" * (align(len(code), 16) - len(code))
    h = base + len(code)
    code += b"\xe9" + struct.pack("<i", f - (h + 5))  # jmp main.f (tail call)
    h_size = 5
    code += b"\xcc" * (align(len(code), 16) - len(code))
    ms = base + len(code)
    code += bytes.fromhex("f30f1efac3")  # endbr64; ret
    ms_size = 5
    code += b"\xcc" * (align(len(code), 16) - len(code))
    rel = ms - (f + call_at + 5)
    code[call_at + 1:call_at + 5] = struct.pack("<i", rel)
    assert ret_at < f_size
    return bytes(code), [("main.f", f, f_size), ("main.g", g, g_size), ("main.h", h, h_size),
                         ("runtime.morestack_noctxt.abi0", ms, ms_size)]


def arm64_code(base):
    words = [
        0xF9400B90,  # ldr x16, [x28, #16]
        0xEB3063FF,  # cmp sp, x16
        0x54000069,  # b.ls +12
        0xD65F03C0,  # ret
        0x00000000,  # a literal-pool word
        0x94000000,  # bl (patched)
        0x17FFFFFA,  # b main.f
    ]
    f_size = 4 * len(words)
    g = base + align(f_size, 16)
    ms = g + 16
    words[5] = 0x94000000 | (((ms - (base + 20)) >> 2) & 0x3FFFFFF)
    code = b"".join(struct.pack("<I", w) for w in words)
    code += b"\0" * (g - base - len(code))
    code += struct.pack("<II", 0x52800020, 0xD65F03C0)  # mov w0,#1; ret
    code += b"\0" * (ms - base - len(code))
    code += struct.pack("<I", 0xD65F03C0)
    return code, [("main.f", base, f_size), ("main.g", g, 8), ("runtime.morestack_noctxt.abi0", ms, 4)]


# ---- .gopclntab --------------------------------------------------------------------------------
def pclntab(functions, text_start, layout):
    """layout: "1.20" (magic fffffff1), "1.26" (the same magic, textStart written as 0: the reader
    must find runtime.text in the moduledata), "1.18" (fffffff0) or "1.16" (fffffffa)."""
    magic = {"1.20": 0xFFFFFFF1, "1.26": 0xFFFFFFF1, "1.18": 0xFFFFFFF0, "1.16": 0xFFFFFFFA}[layout]
    old = layout == "1.16"
    nwords = 7 if old else 8
    hdr_size = 8 + 8 * nwords
    funcnames = bytearray()
    nameoffs = []
    for name, _, _ in functions:
        nameoffs.append(len(funcnames))
        funcnames += name.encode() + b"\0"
    pctab = bytearray(b"\0")  # offset 0 means "no table"
    pcsp = []
    for _, _, size in functions:
        pcsp.append(len(pctab))
        pctab += uleb(2) + uleb(size) + b"\0"  # one row (SP delta 1), then the end
    cutab = b"\0" * 4
    filetab = b"main.go\0"
    funcnametab_off = hdr_size
    cutab_off = funcnametab_off + len(funcnames)
    filetab_off = cutab_off + len(cutab)
    pctab_off = filetab_off + len(filetab)
    functab_off = align(pctab_off + len(pctab), 8)
    field = 8 if old else 4
    n = len(functions)
    functab = bytearray()
    funcs = bytearray()
    func_base = (2 * n + 1) * field
    func_base = align(func_base, 8)
    for i, (name, addr, size) in enumerate(functions):
        entry = addr if old else addr - text_start
        functab += struct.pack("<Q" if old else "<I", entry)
        functab += struct.pack("<Q" if old else "<I", func_base + len(funcs))
        fn = struct.pack("<Q" if old else "<I", entry)
        fn += struct.pack("<iiII", nameoffs[i], 0, 0, pcsp[i]) + b"\0" * 24
        funcs += fn
        funcs += b"\0" * (align(len(funcs), 8) - len(funcs))
    last = functions[-1]
    end = last[1] + last[2]
    functab += struct.pack("<Q" if old else "<I", end if old else end - text_start)
    functab += b"\0" * (func_base - len(functab))
    words = [n, 1]
    if not old:
        words.append(0 if layout == "1.26" else text_start)
    words += [funcnametab_off, cutab_off, filetab_off, pctab_off, functab_off]
    hdr = struct.pack("<IBBBB", magic, 0, 0, 1, 8) + b"".join(struct.pack("<Q", w) for w in words)
    body = bytearray(hdr + funcnames + cutab + filetab + pctab)
    body += b"\0" * (functab_off - len(body))
    body += functab + funcs
    return bytes(body)


# ---- notes and build info -----------------------------------------------------------------------
def note(owner, type_, desc):
    name = owner.encode() + b"\0"
    name += b"\0" * (align(len(name), 4) - len(name))
    desc_p = desc + b"\0" * (align(len(desc), 4) - len(desc))
    return struct.pack("<III", len(owner) + 1, len(desc), type_) + name + desc_p


def buildinfo(version):
    hdr = b"\xff Go buildinf:" + bytes([8, 2]) + b"\0" * 16
    mod = b"path\tgate.test/fuzz\n"
    return hdr + uleb(len(version)) + version.encode() + uleb(len(mod)) + mod


def symtab(functions):
    strtab = bytearray(b"\0")
    syms = b"\0" * 24
    for name, addr, size in functions:
        off = len(strtab)
        strtab += name.encode() + b"\0"
        syms += struct.pack("<IBBHQQ", off, (STB_GLOBAL << 4) | STT_FUNC, 0, 1, addr, size)
    return bytes(syms), bytes(strtab)


# ---- DWARF ---------------------------------------------------------------------------------------
DW = dict(
    TAG_compile_unit=0x11, TAG_subprogram=0x2E, TAG_inlined_subroutine=0x1D, TAG_lexical_block=0x0B,
    TAG_structure_type=0x13, TAG_member=0x0D, TAG_typedef=0x16, TAG_base_type=0x24,
    AT_name=0x03, AT_language=0x13, AT_stmt_list=0x10, AT_low_pc=0x11, AT_high_pc=0x12,
    AT_inline=0x20, AT_abstract_origin=0x31, AT_call_file=0x58, AT_call_line=0x59, AT_ranges=0x55,
    AT_byte_size=0x0B, AT_data_member_location=0x38, AT_type=0x49, AT_encoding=0x3E,
    FORM_addr=0x01, FORM_data1=0x0B, FORM_data2=0x05, FORM_data4=0x06, FORM_string=0x08,
    FORM_udata=0x0F, FORM_ref_addr=0x10, FORM_ref4=0x13, FORM_sec_offset=0x17, FORM_strp=0x0E,
)

ABBREVS = [
    # code, tag, children, [(attr, form)]
    (1, "compile_unit", 1, [("name", "string"), ("language", "data1"), ("stmt_list", "sec_offset"),
                            ("low_pc", "addr")]),
    (2, "subprogram", 1, [("name", "strp"), ("inline", "data1")]),  # abstract
    (3, "subprogram", 1, [("name", "string"), ("low_pc", "addr"), ("high_pc", "addr")]),
    (4, "subprogram", 1, [("abstract_origin", "ref_addr"), ("low_pc", "addr"), ("high_pc", "addr")]),
    (5, "inlined_subroutine", 1, [("abstract_origin", "ref_addr"), ("low_pc", "addr"), ("high_pc", "addr"),
                                  ("call_file", "data4"), ("call_line", "udata")]),
    (6, "inlined_subroutine", 0, [("abstract_origin", "ref4"), ("ranges", "sec_offset"),
                                  ("call_file", "udata"), ("call_line", "data2")]),
    (7, "lexical_block", 1, [("low_pc", "addr"), ("high_pc", "addr")]),
    (8, "structure_type", 1, [("name", "string"), ("byte_size", "udata")]),
    (9, "member", 0, [("name", "string"), ("data_member_location", "udata"), ("type", "ref_addr")]),
    (10, "typedef", 0, [("name", "string"), ("type", "ref_addr")]),
    (11, "base_type", 0, [("name", "string"), ("byte_size", "data1"), ("encoding", "data1")]),
]


def debug_abbrev():
    out = bytearray()
    for code, tag, children, attrs in ABBREVS:
        out += uleb(code) + uleb(DW["TAG_" + tag]) + bytes([children])
        for a, f in attrs:
            out += uleb(DW["AT_" + a]) + uleb(DW["FORM_" + f])
        out += b"\0\0"
    return bytes(out + b"\0")


class Info:
    """Builds .debug_info with forward references patched at the end."""

    def __init__(self):
        self.buf = bytearray()
        self.labels = {}
        self.fixups = []  # (position, label, size, relative_to_cu)
        self.cu_start = 0

    def begin_cu(self):
        self.cu_start = len(self.buf)
        self.buf += b"\0\0\0\0" + struct.pack("<HIB", 4, 0, 8)

    def end_cu(self):
        self.buf += b"\0"  # end of the unit DIE's children
        struct.pack_into("<I", self.buf, self.cu_start, len(self.buf) - self.cu_start - 4)

    def label(self, name):
        self.labels[name] = len(self.buf)

    def die(self, code, *values):
        self.buf += uleb(code)
        attrs = next(a for c, _, _, a in ABBREVS if c == code)
        for (_attr, form), v in zip(attrs, values):
            if form == "string":
                self.buf += v.encode() + b"\0"
            elif form == "addr":
                self.buf += struct.pack("<Q", v)
            elif form in ("data4", "sec_offset", "strp"):
                self.buf += struct.pack("<I", v)
            elif form == "data2":
                self.buf += struct.pack("<H", v)
            elif form == "data1":
                self.buf += bytes([v])
            elif form == "udata":
                self.buf += uleb(v)
            elif form in ("ref_addr", "ref4"):
                self.fixups.append((len(self.buf), v, form == "ref4", self.cu_start))
                self.buf += b"\0\0\0\0"

    def end_children(self):
        self.buf += b"\0"

    def finish(self):
        for pos, label, relative, cu in self.fixups:
            struct.pack_into("<I", self.buf, pos, self.labels[label] - (cu if relative else 0))
        return bytes(self.buf)


def debug_line(addr):
    files = [b"/src/main.go", b"/src/other.go"]
    hdr = bytes([1, 1, (-4) & 0xFF, 10, 10]) + bytes([0, 1, 1, 1, 1, 0, 0, 0, 1])
    hdr += b"\0"  # no include directories
    for f in files:
        hdr += f + b"\0" + uleb(0) + uleb(0) + uleb(0)
    hdr += b"\0"
    prog = b"\x00\x09\x02" + struct.pack("<Q", addr)  # DW_LNE_set_address
    prog += b"\x03" + uleb(9) + b"\x01"  # advance_line 9, copy
    prog += b"\x02" + uleb(8) + b"\x01"  # advance_pc 8, copy
    prog += b"\x00\x01\x01"  # end_sequence
    body = struct.pack("<H", 2) + struct.pack("<I", len(hdr)) + hdr + prog
    return struct.pack("<I", len(body)) + body


def dwarf(fns):
    """Two units: "main" (an abstract main.inl, main.f with nested inlined copies in a lexical
    block, a concrete copy of main.inl), "runtime" (runtime.g, runtime.stack and their typedefs)."""
    f_name, f_addr, f_size = fns[0]
    g_name, g_addr, g_size = fns[1]
    strs = b"main.inl\0"
    info = Info()
    info.begin_cu()
    info.die(1, "main", 22, 0, f_addr)
    info.label("inl")
    info.die(2, 0, 1)
    info.end_children()
    info.label("f")
    info.die(3, f_name, f_addr, f_addr + f_size)
    info.die(5, "inl", f_addr + 2, f_addr + 6, 1, 12)
    info.die(6, "inl", 0, 2, 13)  # nested, with ranges
    info.end_children()
    info.die(7, f_addr + 6, f_addr + 8)
    info.die(5, "inl", f_addr + 6, f_addr + 7, 2, 40)
    info.end_children()
    info.end_children()
    info.end_children()
    info.die(4, "inl", g_addr, g_addr + g_size)
    info.end_children()
    info.end_cu()
    info.begin_cu()
    info.die(1, "runtime", 22, 0, 0)
    info.label("uintptr")
    info.die(11, "uintptr", 8, 7)
    info.label("stack_struct")
    info.die(8, "runtime.stack", 16)
    info.die(9, "lo", 0, "uintptr")
    info.die(9, "hi", 8, "uintptr")
    info.end_children()
    info.label("stack")
    info.die(10, "runtime.stack", "stack_struct")
    info.label("g_struct")
    info.die(8, "runtime.g", 432)
    info.die(9, "stack", 0, "stack")
    info.die(9, "stackguard0", 16, "uintptr")
    info.end_children()
    info.die(10, "runtime.g", "g_struct")
    info.end_cu()
    ranges = struct.pack("<QQQQQQ", 2, 4, 5, 6, 0, 0)  # offsets from the unit's low_pc
    return {".debug_abbrev": debug_abbrev(), ".debug_info": info.finish(), ".debug_str": strs,
            ".debug_line": debug_line(f_addr), ".debug_ranges": ranges}


def compress_elf(data):
    """SHF_COMPRESSED payload: Elf64_Chdr (zlib) + the zlib stream."""
    return struct.pack("<IIQQ", 1, 0, len(data), 1) + zlib.compress(data, 9)


def compress_zdebug(data):
    return b"ZLIB" + struct.pack(">Q", len(data)) + zlib.compress(data, 9)


# ---- images ------------------------------------------------------------------------------------
def image(path, arch="x86", pie=False, with_symtab=True, layout="1.20", dwarf_mode="plain",
          notes=True, go_version="go1.21.13"):
    base = 0x1000 if pie else 0x401000
    code, fns = (x86_code if arch == "x86" else arm64_code)(base)
    sections = [Section(".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, code, addr=base, addralign=16)]
    # Read-only data in a second segment.
    ro_base = base + 0x10000 + (0x234 if pie else 0)
    ro = []
    pcl = pclntab(fns, base, layout)
    ro.append(Section(".data.rel.ro.gopclntab" if pie else ".gopclntab", SHT_PROGBITS, SHF_ALLOC, pcl,
                      addralign=32))
    if go_version:
        ro.append(Section(".go.buildinfo", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, buildinfo(go_version),
                          addralign=16))
    if notes:
        ro.append(Section(".note.go.buildid", SHT_NOTE, SHF_ALLOC, note("Go", 4, b"fuzz/buildid"), addralign=4))
        ro.append(Section(".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, note("GNU", 3, bytes(range(20))),
                          addralign=4))
    if layout == "1.26":
        # runtime.firstmoduledata: a pointer to the pclntab header, ..., then text and etext at
        # offsets 176 and 184 (where a 1.26 reader takes runtime.text from). Filled in below.
        ro.append(Section(".noptrdata", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, bytes(256), addralign=32))
    addr = ro_base
    for s in ro:
        addr = align(addr, s.addralign)
        s.addr = addr
        addr += len(s.data)
    if layout == "1.26":
        moduledata = struct.pack("<Q", ro[0].addr) + bytes(168) + struct.pack("<QQ", base, base + len(code))
        ro[-1].data = moduledata + bytes(256 - len(moduledata))
    sections += ro
    if dwarf_mode != "none":
        for name, data in dwarf(fns).items():
            if dwarf_mode == "compressed":
                sections.append(Section(name, SHT_PROGBITS, SHF_COMPRESSED, compress_elf(data), addralign=8))
            elif dwarf_mode == "zdebug":
                sections.append(Section(".z" + name[1:], SHT_PROGBITS, 0, compress_zdebug(data)))
            else:
                sections.append(Section(name, SHT_PROGBITS, 0, data))
    if with_symtab:
        syms, strs = symtab(fns)
        strtab_index = len(sections) + 2  # .symtab is next, .strtab after it (1-based)
        sections.append(Section(".symtab", SHT_SYMTAB, 0, syms, link=strtab_index, info=1, entsize=24,
                                addralign=8))
        sections.append(Section(".strtab", SHT_STRTAB, 0, strs))
    segments = [(PF_R | PF_X, [".text"]), (PF_R, [s.name for s in ro])]
    machine = EM_X86_64 if arch == "x86" else EM_AARCH64
    return write_elf(path, machine, ET_DYN if pie else ET_EXEC, sections, segments)


C_SEED = r"""
static inline int square(int x) { return x * x; }
static inline int twice(int x) { return square(x) + square(x + 1); }
__attribute__((noinline)) int work(int a) { return twice(a) ^ square(a - 3); }
int main(int argc, char **argv) { (void)argv; return work(argc); }
"""

GO_SEED = 'package main\n\nfunc main() { println("gate fuzz seed") }\n'


def toolchain_seeds(out):
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "seed.c")
        with open(c, "w") as f:
            f.write(C_SEED)
        for name, flags in {"c_gcc_dwarf5.elf": ["-gdwarf-5"],
                            "c_gcc_zdwarf4.elf": ["-gdwarf-4", "-gz=zlib"]}.items():
            subprocess.run(["gcc", "-O2", *flags, "-o", os.path.join(out, name), c], check=True)
            print(f"{name}: {os.path.getsize(os.path.join(out, name))} bytes")
        os.remove(c)  # the Go build below uses the same directory
        with open(os.path.join(tmp, "go.mod"), "w") as f:
            f.write("module gate.test/fuzzseed\n\ngo 1.19\n")
        with open(os.path.join(tmp, "main.go"), "w") as f:
            f.write(GO_SEED)
        env = dict(os.environ, GOTOOLCHAIN="local", GOPROXY="off", GOFLAGS="-mod=mod",
                   GOCACHE=os.path.join(tmp, "gocache"), HOME=os.environ.get("HOME", tmp))
        stripped = os.path.join(out, "go123_tiny_stripped.elf")
        subprocess.run(["/usr/lib/go-1.23/bin/go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w",
                        "-o", stripped, "."], check=True, cwd=tmp, env=env)
        print(f"go123_tiny_stripped.elf: {os.path.getsize(stripped)} bytes")
        # The runtime's real DWARF without the code: libFuzzer truncates seeds above 1 MB, and the
        # DWARF reader needs only the .debug_* sections it reads (still zlib-compressed, as Go writes).
        full = os.path.join(tmp, "with-dwarf")
        subprocess.run(["/usr/lib/go-1.19/bin/go", "build", "-trimpath", "-buildvcs=false", "-o", full, "."],
                       check=True, cwd=tmp, env=env)
        dwarf_only = os.path.join(out, "go119_tiny_dwarf_only.elf")
        keep = [f"--only-section=.debug_{s}" for s in ("abbrev", "info", "line", "ranges", "str")]
        subprocess.run(["objcopy", *keep, "--compress-debug-sections=zlib-gabi", full, dwarf_only], check=True,
                       stderr=subprocess.DEVNULL)  # warnings about the now empty PT_LOADs
        print(f"go119_tiny_dwarf_only.elf: {os.path.getsize(dwarf_only)} bytes")
        # Current Go (ci/setup.sh unpacks it into /opt/gate-go): a 1.27 stripped binary (pclntab
        # without textStart, runtime.text only in the moduledata) and Go 1.25's DWARF 5
        # (.debug_rnglists, .debug_addr, DW_FORM_addrx/rnglistx), the sections the reader reads.
        go = lambda v: f"/opt/gate-go/{v}/usr/lib/go-{v}/bin/go"
        stripped = os.path.join(out, "go127_tiny_stripped.elf")
        subprocess.run([go("1.27"), "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", stripped, "."],
                       check=True, cwd=tmp, env=env)
        print(f"go127_tiny_stripped.elf: {os.path.getsize(stripped)} bytes")
        subprocess.run([go("1.25"), "build", "-trimpath", "-buildvcs=false", "-o", full, "."], check=True, cwd=tmp,
                       env=env)
        dwarf_only = os.path.join(out, "go125_tiny_dwarf5_only.elf")
        keep = [f"--only-section=.debug_{s}" for s in ("abbrev", "info", "line", "rnglists", "addr")]
        subprocess.run(["objcopy", *keep, "--compress-debug-sections=zlib-gabi", full, dwarf_only], check=True,
                       stderr=subprocess.DEVNULL)
        print(f"go125_tiny_dwarf5_only.elf: {os.path.getsize(dwarf_only)} bytes")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = [a for a in sys.argv[1:] if a != "--toolchains"]
    out = args[0] if args else os.path.join(here, "corpus")
    os.makedirs(out, exist_ok=True)
    seeds = {
        "go120_symtab_dwarf.elf": dict(),
        "go120_pclntab_zdwarf.elf": dict(with_symtab=False, dwarf_mode="compressed"),
        "go118_pclntab_zdebug.elf": dict(with_symtab=False, layout="1.18", dwarf_mode="zdebug"),
        "go116_pclntab_nodwarf.elf": dict(with_symtab=False, layout="1.16", dwarf_mode="none",
                                          go_version="go1.17.13"),
        "go120_pie_pclntab.elf": dict(pie=True, with_symtab=False, dwarf_mode="compressed"),
        "go120_arm64_symtab.elf": dict(arch="arm64"),
        "go120_arm64_pclntab.elf": dict(arch="arm64", with_symtab=False, dwarf_mode="none"),
        "go120_bare.elf": dict(notes=False, go_version="", dwarf_mode="none"),
        "go126_pclntab_moduledata.elf": dict(with_symtab=False, layout="1.26", dwarf_mode="compressed",
                                             go_version="go1.26.11"),
    }
    for name, kw in seeds.items():
        n = image(os.path.join(out, name), **kw)
        print(f"{name}: {n} bytes")
    if "--toolchains" in sys.argv:
        toolchain_seeds(out)


if __name__ == "__main__":
    main()
