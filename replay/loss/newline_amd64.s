#include "textflag.h"

// func newlines64(s string) uint64
//
// SSE2 (every amd64 has it): four sixteen-byte blocks compared with '\n',
// each compare's byte mask gathered into sixteen bits. The caller
// guarantees 64 bytes.
#define BLOCK(off, dst) \
	MOVOU    off(SI), X0; \
	PCMPEQB  X1, X0;      \
	PMOVMSKB X0, dst

TEXT ·newlines64(SB), NOSPLIT, $0-24
	MOVQ s_base+0(FP), SI
	MOVQ $0x0a0a0a0a0a0a0a0a, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	BLOCK(0, AX)
	BLOCK(16, BX)
	BLOCK(32, CX)
	BLOCK(48, DX)
	SHLQ $16, BX
	SHLQ $32, CX
	SHLQ $48, DX
	ORQ  BX, AX
	ORQ  CX, AX
	ORQ  DX, AX
	MOVQ AX, ret+16(FP)
	RET
