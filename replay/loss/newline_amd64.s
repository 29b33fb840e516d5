#include "textflag.h"

// func newlines64(s string) uint64
//
// SSE2 (every amd64 has it): four sixteen-byte blocks compared with '\n'.
// The blocks' sixteen-bit byte masks are gathered highest first, the
// result shifted up by sixteen to make room for each next one.
#define NEWLINES(off, dst) \
	MOVOU    off(SI), X0; \
	PCMPEQB  X1, X0;      \
	PMOVMSKB X0, dst

TEXT ·newlines64(SB), NOSPLIT, $0-24
	MOVL       $0x0a0a0a0a, AX
	MOVL       AX, X1
	PSHUFD     $0, X1, X1 // '\n' in all sixteen bytes
	MOVQ       s_base+0(FP), SI
	NEWLINES(48, AX)
	SHLQ       $16, AX
	NEWLINES(32, BX)
	ORQ        BX, AX
	SHLQ       $16, AX
	NEWLINES(16, BX)
	ORQ        BX, AX
	SHLQ       $16, AX
	NEWLINES(0, BX)
	ORQ        BX, AX
	MOVQ       AX, ret+16(FP)
	RET
