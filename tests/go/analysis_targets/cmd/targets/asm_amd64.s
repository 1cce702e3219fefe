// Hand-written bodies that the Go compiler would never emit: a tail jump with no RET, and
// bytes that are not an x86-64 instruction.
#include "textflag.h"

// func tailJump() int
TEXT ·tailJump(SB), NOSPLIT, $0-8
	JMP ·tailTarget(SB)

// func undecodable(): 0x06 (PUSH ES) does not exist in 64-bit mode.
TEXT ·undecodable(SB), NOSPLIT, $0-0
	BYTE $0x06
	RET

// One function per instruction class of the kernel's x86 uprobe code, each led by that
// instruction (raw bytes: the Go assembler would rewrite some of them) and ended by RET.
TEXT ·costNop(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0x90 // nop: emulated
	RET

TEXT ·costNopPrefixed(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0x66; BYTE $0x90 // xchg ax,ax (66 90): still a nop, emulated
	RET

TEXT ·costPushRbp(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0x55 // push rbp: emulated
	BYTE $0x5d // pop rbp
	RET

TEXT ·costPushR12(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0x41; BYTE $0x54 // push r12: emulated (REX 0x41 only)
	BYTE $0x41; BYTE $0x5c // pop r12
	RET

TEXT ·costJmpRel8(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0xeb; BYTE $0x00 // jmp +0: emulated
	RET

TEXT ·costJmpRel32(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0xe9; LONG $0x00000000 // jmp +0 (rel32): emulated
	RET

TEXT ·costMov(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0x48; BYTE $0x89; BYTE $0xe5 // mov rbp, rsp: single-stepped
	RET

TEXT ·costNopwCs(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0x66; BYTE $0x2e; BYTE $0x0f; BYTE $0x1f; BYTE $0x84; BYTE $0x00; LONG $0x00000000 // nopw %cs:0(%rax,%rax,1): CS prefix, refused
	RET

TEXT ·costLockAdd(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0xf0; BYTE $0x48; BYTE $0x83; BYTE $0x04; BYTE $0x24; BYTE $0x00 // lock add qword [rsp], 0: refused
	RET

TEXT ·costEndbr64(SB), NOSPLIT|NOFRAME, $0-0
	BYTE $0xf3; BYTE $0x0f; BYTE $0x1e; BYTE $0xfa // endbr64 (cgo/C functions start with it): single-stepped
	RET
