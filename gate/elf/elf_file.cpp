// ElfFile: reads a whole executable into memory and indexes it with libelf: function symbols,
// PT_LOAD segments for virtual-address -> file-offset mapping, build ids and the Go version.
#include "elf/elf_file.hpp"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

#include "common/error.hpp"

namespace gate::elf {

namespace detail {
// The parsed file. ElfFile::Impl is private; the parsing helpers below work on this base.
struct ElfImage {
  std::string path;
  std::vector<uint8_t> bytes;  // the whole file; every span below points into it
  Arch arch = Arch::kOther;
  bool pie = false;
  bool has_symtab = false;
  std::vector<Symbol> functions;
  std::vector<LoadSegment> segments;
  std::vector<Section> sections;
};
}  // namespace detail

struct ElfFile::Impl : detail::ElfImage {};

namespace {

constexpr const char* kRebuildFix =
    "the file was cut short (interrupted copy or build?): rebuild it or copy it again";

// libelf handle over a memory image, released on every exit path.
class ElfHandle {
 public:
  explicit ElfHandle(std::vector<uint8_t>& bytes) {
    elf_version(EV_CURRENT);
    elf_ = elf_memory(reinterpret_cast<char*>(bytes.data()), bytes.size());
  }
  ~ElfHandle() {
    if (elf_) elf_end(elf_);
  }
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;
  ::Elf* get() const { return elf_; }

 private:
  ::Elf* elf_ = nullptr;
};

Error libelf_error(const std::string& path, const std::string& what) {
  return Error::make(path, what + ": " + elf_errmsg(-1), kRebuildFix);
}

// Ranges come from the file itself: check them before any span is made from them.
void check_inside(const std::string& path, const std::string& what, uint64_t offset, uint64_t size,
                  uint64_t file_size) {
  if (offset > file_size || size > file_size - offset)
    throw Error::make(path,
                      "truncated ELF file: " + what + " ends at byte " + std::to_string(offset + size) +
                          " but the file has only " + std::to_string(file_size) + " bytes",
                      kRebuildFix);
}

void check_ident(const std::string& path, const std::vector<uint8_t>& bytes) {
  if (bytes.size() < 4 || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    throw Error::make(path, "not an ELF file (no \\x7fELF magic at the start)",
                      "point gate at the compiled Go executable (the output of `go build`), not a "
                      "source file, script or archive");
  if (bytes.size() < sizeof(Elf64_Ehdr))
    throw Error::make(path,
                      "truncated ELF file: " + std::to_string(bytes.size()) +
                          " bytes, shorter than the 64-byte ELF header",
                      kRebuildFix);
  if (bytes[EI_CLASS] != ELFCLASS64)
    throw Error::make(path, "32-bit ELF file: only 64-bit executables are supported",
                      "build for a 64-bit target (GOARCH=amd64 or arm64)");
}

Arch arch_of(const GElf_Ehdr& eh) {
  switch (eh.e_machine) {
    case EM_X86_64: return Arch::kX86_64;
    case EM_AARCH64: return Arch::kArm64;
    default: return Arch::kOther;
  }
}

void read_segments(::Elf* e, detail::ElfImage& im) {
  size_t n = 0;
  if (elf_getphdrnum(e, &n) != 0) throw libelf_error(im.path, "cannot read the program headers");
  for (size_t i = 0; i < n; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(e, static_cast<int>(i), &ph)) throw libelf_error(im.path, "cannot read a program header");
    if (ph.p_type != PT_LOAD) continue;
    check_inside(im.path, "PT_LOAD segment " + std::to_string(i), ph.p_offset, ph.p_filesz, im.bytes.size());
    im.segments.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, (ph.p_flags & PF_X) != 0});
  }
}

void read_sections(::Elf* e, detail::ElfImage& im) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(e, &shstrndx) != 0) throw libelf_error(im.path, "cannot read the section name table");
  for (Elf_Scn* scn = elf_nextscn(e, nullptr); scn; scn = elf_nextscn(e, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) throw libelf_error(im.path, "cannot read a section header");
    const char* name = elf_strptr(e, shstrndx, sh.sh_name);
    Section s{name ? name : "", sh.sh_addr, sh.sh_offset, sh.sh_size, {}, sh.sh_type, sh.sh_flags};
    if (sh.sh_type != SHT_NOBITS) {
      check_inside(im.path, "section " + s.name, sh.sh_offset, sh.sh_size, im.bytes.size());
      s.bytes = {im.bytes.data() + sh.sh_offset, sh.sh_size};
    }
    if (sh.sh_type == SHT_SYMTAB) im.has_symtab = true;
    im.sections.push_back(std::move(s));
  }
}

void read_function_symbols(::Elf* e, detail::ElfImage& im) {
  for (Elf_Scn* scn = elf_nextscn(e, nullptr); scn; scn = elf_nextscn(e, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) throw libelf_error(im.path, "cannot read .symtab");
    const size_t count = sh.sh_size / sh.sh_entsize;
    im.functions.reserve(count / 2);
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
      if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0) continue;
      const char* name = elf_strptr(e, sh.sh_link, sym.st_name);
      im.functions.push_back({name ? name : "", sym.st_value, sym.st_size});
    }
  }
  std::stable_sort(im.functions.begin(), im.functions.end(),
                   [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
}

void parse(detail::ElfImage& im) {
  check_ident(im.path, im.bytes);
  ElfHandle h(im.bytes);
  if (!h.get() || elf_kind(h.get()) != ELF_K_ELF) throw libelf_error(im.path, "libelf cannot parse the file");
  GElf_Ehdr eh;
  if (!gelf_getehdr(h.get(), &eh)) throw libelf_error(im.path, "cannot read the ELF header");
  check_inside(im.path, "the program header table", eh.e_phoff, uint64_t{eh.e_phnum} * eh.e_phentsize,
               im.bytes.size());
  check_inside(im.path, "the section header table", eh.e_shoff, uint64_t{eh.e_shnum} * eh.e_shentsize,
               im.bytes.size());
  im.arch = arch_of(eh);
  im.pie = eh.e_type == ET_DYN;
  read_segments(h.get(), im);
  read_sections(h.get(), im);
  read_function_symbols(h.get(), im);
}

uint32_t load32(const uint8_t* p, bool big_endian) {
  return big_endian ? (uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3])
                    : (uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | p[0]);
}

uint64_t load_ptr(const uint8_t* p, unsigned size, bool big_endian) {
  uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) v |= uint64_t{p[big_endian ? size - 1 - i : i]} << (8 * i);
  return v;
}

// Walks ELF notes (namesz, descsz, type, name, desc; 4-byte aligned) and returns the descriptor
// of the first note with this owner name and type.
std::span<const uint8_t> find_note(std::span<const uint8_t> notes, std::string_view owner, uint32_t type) {
  size_t off = 0;
  auto align4 = [](uint64_t v) { return (v + 3) & ~uint64_t{3}; };
  while (off + 12 <= notes.size()) {
    const uint32_t namesz = load32(&notes[off], false), descsz = load32(&notes[off + 4], false);
    const uint32_t ntype = load32(&notes[off + 8], false);
    const uint64_t name_at = off + 12, desc_at = name_at + align4(namesz);
    if (desc_at + descsz > notes.size()) break;
    std::string_view name(reinterpret_cast<const char*>(&notes[name_at]), namesz);
    while (!name.empty() && name.back() == '\0') name.remove_suffix(1);  // Go pads "Go" to 4 bytes
    if (ntype == type && name == owner) return notes.subspan(desc_at, descsz);
    off = desc_at + align4(descsz);
  }
  return {};
}

// Go's varint (unsigned LEB128), as written in the inline .go.buildinfo layout.
bool read_uvarint(std::span<const uint8_t> b, size_t& pos, uint64_t& out) {
  out = 0;
  for (unsigned shift = 0; pos < b.size() && shift < 64; shift += 7) {
    const uint8_t c = b[pos++];
    out |= uint64_t{c & 0x7fu} << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}

constexpr std::string_view kBuildInfoMagic = "\xff Go buildinf:";

}  // namespace

ElfFile::ElfFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ElfFile::ElfFile(ElfFile&&) noexcept = default;
ElfFile& ElfFile::operator=(ElfFile&&) noexcept = default;
ElfFile::~ElfFile() = default;

ElfFile ElfFile::open(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw Error::make(path, std::string("cannot open: ") + std::strerror(errno),
                      errno == ENOENT ? "check the path; build the binary first (go build -o " + path + ")"
                                      : "check the path and its permissions");
  if (S_ISDIR(st.st_mode))
    throw Error::make(path, "is a directory, not an executable", "give the path of the built binary");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error::make(path, std::string("cannot read: ") + std::strerror(errno),
                      "make the file readable by this user");
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return from_bytes(std::move(bytes), path);
}

ElfFile ElfFile::from_bytes(std::vector<uint8_t> bytes, const std::string& name) {
  auto im = std::make_unique<Impl>();
  im->path = name;
  im->bytes = std::move(bytes);
  parse(*im);
  return ElfFile(std::move(im));
}

const std::string& ElfFile::path() const { return impl_->path; }
Arch ElfFile::arch() const { return impl_->arch; }
bool ElfFile::is_pie() const { return impl_->pie; }
bool ElfFile::has_symtab() const { return impl_->has_symtab; }
const std::vector<Symbol>& ElfFile::function_symbols() const { return impl_->functions; }
const std::vector<LoadSegment>& ElfFile::load_segments() const { return impl_->segments; }

const std::vector<Section>& ElfFile::sections() const { return impl_->sections; }

std::optional<Section> ElfFile::section(const std::string& name) const {
  for (const auto& s : impl_->sections)
    if (s.name == name) return s;
  return std::nullopt;
}

std::optional<uint64_t> ElfFile::file_offset(uint64_t vaddr) const {
  for (const auto& seg : impl_->segments)
    if (vaddr >= seg.vaddr && vaddr - seg.vaddr < seg.filesz) return vaddr - seg.vaddr + seg.file_offset;
  return std::nullopt;
}

std::span<const uint8_t> ElfFile::read(uint64_t vaddr, uint64_t len) const {
  for (const auto& seg : impl_->segments) {
    if (vaddr < seg.vaddr || vaddr - seg.vaddr >= seg.filesz) continue;
    if (len > seg.filesz - (vaddr - seg.vaddr)) return {};
    return {impl_->bytes.data() + seg.file_offset + (vaddr - seg.vaddr), len};
  }
  return {};
}

std::string ElfFile::gnu_build_id() const {
  static constexpr uint32_t kNtGnuBuildId = 3;
  for (const auto& s : impl_->sections) {
    if (!s.name.starts_with(".note")) continue;
    auto desc = find_note(s.bytes, "GNU", kNtGnuBuildId);
    if (desc.empty()) continue;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (uint8_t b : desc) hex += {kHex[b >> 4], kHex[b & 15]};
    return hex;
  }
  return "";
}

std::string ElfFile::go_build_id() const {
  static constexpr uint32_t kNtGoBuildId = 4;
  auto s = section(".note.go.buildid");
  if (!s) return "";
  auto desc = find_note(s->bytes, "Go", kNtGoBuildId);
  return {desc.begin(), desc.end()};
}

std::string ElfFile::go_version() const {
  // The header is 32 bytes: magic (14), pointer size, flags, then (old layout) two pointers.
  std::span<const uint8_t> info;
  if (auto s = section(".go.buildinfo")) info = s->bytes;
  if (info.size() < 32 || std::memcmp(info.data(), kBuildInfoMagic.data(), kBuildInfoMagic.size()) != 0)
    return "";
  const unsigned ptr_size = info[14];
  const bool big_endian = info[15] & 1, inline_strings = info[15] & 2;
  if (inline_strings) {  // Go >= 1.18: varint length + bytes, right after the header
    size_t pos = 32;
    uint64_t len = 0;
    if (!read_uvarint(info, pos, len) || len > info.size() - pos) return "";
    return {info.begin() + static_cast<ptrdiff_t>(pos), info.begin() + static_cast<ptrdiff_t>(pos + len)};
  }
  // Go < 1.18: a pointer to a Go string header {data pointer, length}.
  if (ptr_size != 4 && ptr_size != 8) return "";
  const uint64_t header = load_ptr(&info[16], ptr_size, big_endian);
  auto h = read(header, 2ull * ptr_size);
  if (h.empty()) return "";
  const uint64_t data = load_ptr(h.data(), ptr_size, big_endian);
  const uint64_t len = load_ptr(h.data() + ptr_size, ptr_size, big_endian);
  auto str = read(data, len);
  return {str.begin(), str.end()};
}

}  // namespace gate::elf
