// profile.proto by hand: field numbers from google/pprof's proto/profile.proto.
#include "profile/pprof.hpp"

#include <zlib.h>

#include <fstream>
#include <map>
#include <tuple>

#include "common/error.hpp"

namespace gate::profile {
namespace {

// Protobuf wire format: a key (field << 3 | wire type), then a varint or a length and bytes.
class Message {
 public:
  void varint_field(uint32_t field, uint64_t v) {
    if (v == 0) return;  // proto3: zero is the default and is not written
    varint(uint64_t{field} << 3 | 0);
    varint(v);
  }
  void bytes_field(uint32_t field, std::string_view b) {
    varint(uint64_t{field} << 3 | 2);
    varint(b.size());
    out_.append(b);
  }
  void packed_field(uint32_t field, const std::vector<uint64_t>& values) {
    Message body;
    for (uint64_t v : values) body.varint(v);
    bytes_field(field, body.out_);
  }
  const std::string& bytes() const { return out_; }

 private:
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
};

class Strings {
 public:
  Strings() { id(""); }  // string_table[0] must be ""
  uint64_t id(const std::string& s) {
    auto [it, added] = ids_.emplace(s, table_.size());
    if (added) table_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& table() const { return table_; }

 private:
  std::map<std::string, uint64_t> ids_;
  std::vector<std::string> table_;
};

std::string value_type(Strings& s, const char* type, const char* unit) {
  Message m;
  m.varint_field(1, s.id(type));
  m.varint_field(2, s.id(unit));
  return m.bytes();
}

}  // namespace

std::string encode_pprof(const Profile& p, const PprofMeta& meta) {
  Strings s;
  Message prof;
  prof.bytes_field(1, value_type(s, "samples", "count"));
  prof.bytes_field(1, value_type(s, "cpu", "nanoseconds"));
  const uint64_t period = p.period_ns();
  for (const Sample& sample : p.samples) {
    Message m;
    std::vector<uint64_t> ids;
    for (uint32_t loc : sample.locations) ids.push_back(uint64_t{loc} + 1);  // ids are nonzero
    m.packed_field(1, ids);
    m.packed_field(2, {sample.count, sample.count * period});
    prof.bytes_field(2, m.bytes());
  }
  {
    Message m;
    m.varint_field(1, 1);
    m.varint_field(5, s.id(meta.binary));
    m.varint_field(6, s.id(meta.build_id));
    for (uint32_t flag = 7; flag <= 10; ++flag) m.varint_field(flag, 1);  // has_functions .. has_inline_frames
    prof.bytes_field(3, m.bytes());
  }
  // Functions by (name, file, start line): inlined and out-of-line frames of one function share one.
  std::map<std::tuple<std::string, std::string, int>, uint64_t> functions;
  std::vector<std::string> function_messages;
  for (size_t i = 0; i < p.locations.size(); ++i) {
    const Location& loc = p.locations[i];
    Message m;
    m.varint_field(1, i + 1);
    m.varint_field(2, 1);
    m.varint_field(3, loc.address);
    for (const auto& frame : loc.frames) {  // innermost first, as pprof wants
      auto key = std::make_tuple(frame.function, frame.file, frame.start_line);
      auto [it, added] = functions.emplace(key, functions.size() + 1);
      if (added) {
        Message f;
        f.varint_field(1, it->second);
        f.varint_field(2, s.id(frame.function));
        f.varint_field(3, s.id(frame.function));
        f.varint_field(4, s.id(frame.file));
        f.varint_field(5, static_cast<uint64_t>(frame.start_line));
        function_messages.push_back(f.bytes());
      }
      Message line;
      line.varint_field(1, it->second);
      line.varint_field(2, static_cast<uint64_t>(frame.line));
      m.bytes_field(4, line.bytes());
    }
    prof.bytes_field(4, m.bytes());
  }
  for (const auto& f : function_messages) prof.bytes_field(5, f);
  // Everything that names a string has been written: the table can follow.
  const uint64_t cpu = s.id("cpu"), ns = s.id("nanoseconds");
  for (const auto& str : s.table()) prof.bytes_field(6, str);
  prof.varint_field(9, static_cast<uint64_t>(meta.time_nanos));
  prof.varint_field(10, static_cast<uint64_t>(meta.duration_nanos));
  Message period_type;
  period_type.varint_field(1, cpu);
  period_type.varint_field(2, ns);
  prof.bytes_field(11, period_type.bytes());
  prof.varint_field(12, period);
  return prof.bytes();
}

std::string gzip(std::string_view bytes) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("zlib: deflateInit2 failed (out of memory?)");
  std::string out(deflateBound(&z, bytes.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw Error("zlib: deflate did not finish (rc " + std::to_string(rc) + ")");
  out.resize(z.total_out);
  return out;
}

void write_pprof(const std::string& path, const Profile& p, const PprofMeta& meta) {
  const std::string data = gzip(encode_pprof(p, meta));
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  f.close();
  if (!f)
    throw Error::make(path, "cannot write the pprof profile", "check that its directory exists and is writable");
}

}  // namespace gate::profile
