// Hand-written bodies that the Go compiler would never emit: a tail jump with no RET, and
// a word that is not an arm64 instruction.
#include "textflag.h"

// func tailJump() int
TEXT ·tailJump(SB), NOSPLIT, $0-8
	JMP ·tailTarget(SB)

// func undecodable(): an undefined encoding (udf-like) followed by RET.
TEXT ·undecodable(SB), NOSPLIT, $0-0
	WORD $0x00000000
	RET

// Functions led by one instruction of each uprobe class of the arm64 kernel code.
TEXT ·costBranch(SB), NOSPLIT|NOFRAME, $0-0
	JMP 1(PC) // b: simulated
	RET

TEXT ·costMov(SB), NOSPLIT|NOFRAME, $0-0
	MOVD R1, R0 // mov: single-stepped
	RET

TEXT ·costLdaxr(SB), NOSPLIT|NOFRAME, $0-0
	LDAXR (R0), R1 // exclusive load: refused
	RET
