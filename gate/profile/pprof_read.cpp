// Reads back the pprof files gate writes (profile/pprof.hpp): gunzip, then the few profile.proto
// fields a Profile holds. Field numbers from google/pprof's proto/profile.proto.
#include <zlib.h>

#include <fstream>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "profile/pprof.hpp"

namespace gate::profile {
namespace {

// One protobuf message's fields, in order; throws on malformed input.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool next() {
    if (at_ >= b_.size()) return false;
    const uint64_t key = varint();
    field_ = static_cast<uint32_t>(key >> 3);
    type_ = static_cast<int>(key & 7);
    switch (type_) {
      case 0: value_ = varint(); break;
      case 1: skip(8); break;
      case 5: skip(4); break;
      case 2: {
        const uint64_t n = varint();
        if (n > b_.size() - at_) throw Error("pprof: a field's length runs past the message");
        bytes_ = b_.substr(at_, n);
        at_ += n;
        break;
      }
      default: throw Error("pprof: unknown wire type " + std::to_string(type_));
    }
    return true;
  }
  uint32_t field() const { return field_; }
  uint64_t value() const { return value_; }
  std::string_view bytes() const { return bytes_; }
  // A repeated uint64 field: packed (wire type 2) or one varint.
  void append_repeated(std::vector<uint64_t>& out) const {
    if (type_ == 0) {
      out.push_back(value_);
      return;
    }
    Reader r(bytes_);
    while (r.at_ < r.b_.size()) out.push_back(r.varint());
  }

 private:
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= b_.size()) throw Error("pprof: a varint runs past the message");
      const auto c = static_cast<uint8_t>(b_[at_++]);
      v |= uint64_t{c & 0x7fu} << shift;
      if (!(c & 0x80)) return v;
    }
    throw Error("pprof: a varint longer than 10 bytes");
  }
  void skip(size_t n) {
    if (n > b_.size() - at_) throw Error("pprof: a fixed field runs past the message");
    at_ += n;
  }
  std::string_view b_;
  size_t at_ = 0;
  uint32_t field_ = 0;
  int type_ = 0;
  uint64_t value_ = 0;
  std::string_view bytes_;
};

}  // namespace

std::string gunzip(std::string_view bytes) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) throw Error("zlib: inflateInit2 failed (out of memory?)");  // gzip or zlib
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char buf[65536];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) throw Error("zlib: not a complete gzip stream (rc " + std::to_string(rc) + ")");
  return out;
}

Profile decode_pprof(std::string_view proto) {
  struct Fn {
    uint64_t name = 0, file = 0, start_line = 0;
  };
  struct Loc {
    uint64_t address = 0;
    std::vector<std::pair<uint64_t, uint64_t>> lines;  // function id, line
  };
  std::vector<std::string> strings;
  std::map<uint64_t, Fn> functions;
  std::vector<std::pair<uint64_t, Loc>> locations;
  std::vector<std::pair<std::vector<uint64_t>, uint64_t>> samples;  // location ids, count
  uint64_t period = 0;
  Reader r(proto);
  while (r.next()) {
    switch (r.field()) {
      case 2: {  // Sample
        Reader s(r.bytes());
        std::vector<uint64_t> ids, values;
        while (s.next()) {
          if (s.field() == 1) s.append_repeated(ids);
          if (s.field() == 2) s.append_repeated(values);
        }
        samples.emplace_back(std::move(ids), values.empty() ? 0 : values[0]);
        break;
      }
      case 4: {  // Location
        Reader l(r.bytes());
        uint64_t id = 0;
        Loc loc;
        while (l.next()) {
          if (l.field() == 1) id = l.value();
          if (l.field() == 3) loc.address = l.value();
          if (l.field() == 4) {
            Reader line(l.bytes());
            std::pair<uint64_t, uint64_t> fl{0, 0};
            while (line.next()) {
              if (line.field() == 1) fl.first = line.value();
              if (line.field() == 2) fl.second = line.value();
            }
            loc.lines.push_back(fl);
          }
        }
        locations.emplace_back(id, std::move(loc));
        break;
      }
      case 5: {  // Function
        Reader f(r.bytes());
        uint64_t id = 0;
        Fn fn;
        while (f.next()) {
          if (f.field() == 1) id = f.value();
          if (f.field() == 2) fn.name = f.value();
          if (f.field() == 4) fn.file = f.value();
          if (f.field() == 5) fn.start_line = f.value();
        }
        functions[id] = fn;
        break;
      }
      case 6: strings.emplace_back(r.bytes()); break;
      case 12: period = r.value(); break;
      default: break;
    }
  }
  auto str = [&](uint64_t i) { return i < strings.size() ? strings[i] : std::string(); };
  Profile p;
  p.hz = period > 0 ? static_cast<int>((1'000'000'000ull + period / 2) / period) : 0;
  std::map<uint64_t, uint32_t> index;
  for (auto& [id, loc] : locations) {
    Location out;
    out.address = loc.address;
    for (size_t i = 0; i < loc.lines.size(); ++i) {
      const Fn& fn = functions[loc.lines[i].first];
      out.frames.push_back({str(fn.name), str(fn.file), static_cast<int>(loc.lines[i].second),
                            static_cast<int>(fn.start_line), i + 1 < loc.lines.size()});
    }
    index[id] = static_cast<uint32_t>(p.locations.size());
    p.locations.push_back(std::move(out));
  }
  for (auto& [ids, count] : samples) {
    Sample s;
    s.count = count;
    for (uint64_t id : ids) {
      const auto it = index.find(id);
      if (it == index.end()) throw Error("pprof: a sample names location " + std::to_string(id) + ", which is not in the file");
      s.locations.push_back(it->second);
    }
    p.total += count;
    for (uint32_t l : s.locations)
      if (!p.locations[l].frames.empty() && p.locations[l].frames.front().function == kGateProbeFrame) {
        p.in_gate_probe += count;
        break;
      }
    p.samples.push_back(std::move(s));
  }
  return p;
}

Profile read_pprof(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error::make(path, "cannot read the pprof profile", "check the path (gate record --profile writes it)");
  std::ostringstream ss;
  ss << f.rdbuf();
  try {
    return decode_pprof(gunzip(ss.str()));
  } catch (const Error& e) {
    throw Error::make(path, std::string("is not a pprof profile gate can read: ") + e.what(),
                      "record it again with gate record --profile");
  }
}

}  // namespace gate::profile
