#include "textflag.h"

// func special64(b []byte) uint64
//
// SSE2 (every amd64 has it), four sixteen-byte blocks: a byte is special
// when it equals '"' or '\\', or when, read as a signed byte, it is below
// 0x20 (which is both the control characters and, being negative, every
// byte >= 0x80). The caller guarantees 64 bytes.
#define BLOCK(off, dst) \
	MOVOU   off(SI), X0; \
	MOVO    X3, X4;      \
	PCMPGTB X0, X4;      \
	MOVO    X0, X5;      \
	PCMPEQB X1, X5;      \
	POR     X5, X4;      \
	PCMPEQB X2, X0;      \
	POR     X0, X4;      \
	PMOVMSKB X4, dst

TEXT ·special64(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x5c5c5c5c5c5c5c5c, AX
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2
	MOVQ $0x2020202020202020, AX
	MOVQ AX, X3
	PUNPCKLQDQ X3, X3
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
	MOVQ AX, ret+24(FP)
	RET
