#include "textflag.h"

// func specialBlocks(b []byte) int
//
// SSE2 (every amd64 has it), sixteen bytes a step: a byte is special when
// it equals '"' or '\\', or when, read as a signed byte, it is below 0x20
// (which is both the control characters and, being negative, every byte
// >= 0x80).
TEXT ·specialBlocks(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	ANDQ $-16, CX
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x5c5c5c5c5c5c5c5c, AX
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2
	MOVQ $0x2020202020202020, AX
	MOVQ AX, X3
	PUNPCKLQDQ X3, X3
	XORQ DX, DX

loop:
	CMPQ DX, CX
	JAE  done
	MOVOU (SI)(DX*1), X0
	MOVO  X3, X4
	PCMPGTB X0, X4
	MOVO  X0, X5
	PCMPEQB X1, X5
	POR   X5, X4
	PCMPEQB X2, X0
	POR   X0, X4
	PMOVMSKB X4, AX
	TESTL AX, AX
	JNZ   found
	ADDQ  $16, DX
	JMP   loop

found:
	BSFL AX, AX
	ADDQ AX, DX

done:
	MOVQ DX, ret+24(FP)
	RET
