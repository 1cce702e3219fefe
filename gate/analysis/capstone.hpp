// One Capstone disassembler: its handle, with operand details on, and one instruction buffer,
// freed together. What probe_sites.cpp (probe sites, x86-64 and arm64) and code_diff.cpp (machine
// code compared across builds) both decode with.
#pragma once

#include <capstone/capstone.h>

#include <string>

#include "common/error.hpp"

namespace gate::analysis {

class CapstoneHandle {
 public:
  // `what` names the disassembler in the error when Capstone cannot open it ("an x86-64 disassembler").
  CapstoneHandle(cs_arch arch, cs_mode mode, const std::string& what) {
    if (cs_open(arch, mode, &handle_) != CS_ERR_OK)
      throw Error::make("Capstone", "cannot open " + what, "reinstall libcapstone");
    cs_option(handle_, CS_OPT_DETAIL, CS_OPT_ON);
    insn_ = cs_malloc(handle_);
  }
  ~CapstoneHandle() {
    cs_free(insn_, 1);
    cs_close(&handle_);
  }
  CapstoneHandle(const CapstoneHandle&) = delete;
  CapstoneHandle& operator=(const CapstoneHandle&) = delete;

  csh handle() const { return handle_; }
  cs_insn* insn() const { return insn_; }  // cs_disasm_iter's buffer: one instruction at a time

 private:
  csh handle_ = 0;
  cs_insn* insn_ = nullptr;
};

}  // namespace gate::analysis
