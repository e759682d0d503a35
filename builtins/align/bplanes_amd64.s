#include "textflag.h"

// The four-lane step loop of the bit-vector kernel for D = 4, Wx = 1
// (bplanes.go; stepGo is the reference, bitpar.go the derivation).
// Registers: Y0-Y3 the thresholds v1-v4 of V, Y4 the match masks mm, Y6
// the packed carries into the lanes, Y7 those out of them, Y8-Y11 the
// shifted thresholds s4, s3, s2, s1 of x, Y12 a threshold's carry bit,
// Y13 A then G, Y5 a temporary, Y14 = 1 and Y15 = all ones in every lane.
// The mismatch mask nm = ~mm & real is kept at 288(AX).

// CHAIN solves X = G | C & X<<1 for Q = C_t in QS and A_t in AG (Y12 the
// carry bit): QS becomes s_t = X<<1 | c, and X's top bits go to Y7 at SH.
#define CHAIN(QS, AG, SH) \
	VPAND Y12, QS, Y5 \
	VPOR Y5, AG, AG \
	VPOR AG, QS, QS \
	VPADDQ AG, QS, Y5 \
	VPANDN QS, Y5, QS \
	VPOR AG, QS, QS \
	VPSRLQ $63, QS, Y5 \
	VPSLLQ $SH, Y5, Y5 \
	VPOR Y5, Y7, Y7 \
	VPSLLQ $1, QS, QS \
	VPOR Y12, QS, QS

// func bpLanes41AVX2(st *lanesState, peq *uint64, rowoff *int32, cin, cout *uint8, real *[4]uint64, from, to int)
TEXT ·bpLanes41AVX2(SB), NOSPLIT, $0-64
	MOVQ st+0(FP), AX
	MOVQ peq+8(FP), BX
	MOVQ rowoff+16(FP), CX
	MOVQ cin+24(FP), DX
	MOVQ cout+32(FP), SI
	MOVQ real+40(FP), DI
	MOVQ from+48(FP), R8
	MOVQ to+56(FP), R9
	VMOVDQU 0(AX), Y0
	VMOVDQU 32(AX), Y1
	VMOVDQU 64(AX), Y2
	VMOVDQU 96(AX), Y3
	VMOVDQU 256(AX), Y7
	VPCMPEQQ Y15, Y15, Y15
	VPSRLQ $63, Y15, Y14

loop:
	CMPQ R8, R9
	JGE done

	// Carries in: lane l from lane l-1's last step, lane 0 from cin[t].
	VPERMQ $0x90, Y7, Y6
	MOVBQZX (DX)(R8*1), R10
	VMOVQ R10, X5
	VPBLENDD $0x03, Y5, Y6, Y6
	VPXOR Y7, Y7, Y7

	// mm: lane l reads word l of the row of b[t-l].
	MOVLQSX (CX)(R8*4), R10
	MOVLQSX -4(CX)(R8*4), R11
	MOVLQSX -8(CX)(R8*4), R12
	MOVLQSX -12(CX)(R8*4), R13
	VMOVQ 0(BX)(R10*1), X4
	VPINSRQ $1, 8(BX)(R11*1), X4, X4
	VMOVQ 16(BX)(R12*1), X13
	VPINSRQ $1, 24(BX)(R13*1), X13, X13
	VINSERTI128 $1, X13, Y4, Y4
	VPANDN (DI), Y4, Y13
	VMOVDQU Y13, 288(AX)

	// t = 4: A = mm &^ v1, Q = ^v1.
	VPSRLQ $3, Y6, Y12
	VPAND Y14, Y12, Y12
	VPANDN Y4, Y0, Y13
	VPXOR Y15, Y0, Y8
	CHAIN(Y8, Y13, 3)

	// t = 3: A = mm &^ v2, Q = ^(v2 | v1 &^ s4).
	VPSRLQ $2, Y6, Y12
	VPAND Y14, Y12, Y12
	VPANDN Y4, Y1, Y13
	VPANDN Y0, Y8, Y5
	VPOR Y1, Y5, Y5
	VPXOR Y15, Y5, Y9
	CHAIN(Y9, Y13, 2)

	// t = 2: A = mm &^ v3, Q = ^(v3 | v1 &^ s3 | v2 &^ s4).
	VPSRLQ $1, Y6, Y12
	VPAND Y14, Y12, Y12
	VPANDN Y4, Y2, Y13
	VPANDN Y0, Y9, Y5
	VPANDN Y1, Y8, Y10
	VPOR Y10, Y5, Y5
	VPOR Y2, Y5, Y5
	VPXOR Y15, Y5, Y10
	CHAIN(Y10, Y13, 1)

	// t = 1: A = mm &^ v4 | nm &^ v1, Q = ^(v4 | v1 &^ s2 | v2 &^ s3 | v3 &^ s4).
	VPAND Y14, Y6, Y12
	VPANDN Y4, Y3, Y13
	VPANDN 288(AX), Y0, Y5
	VPOR Y5, Y13, Y13
	VPANDN Y0, Y10, Y5
	VPANDN Y1, Y9, Y11
	VPOR Y11, Y5, Y5
	VPANDN Y2, Y8, Y11
	VPOR Y11, Y5, Y5
	VPOR Y3, Y5, Y5
	VPXOR Y15, Y5, Y11
	CHAIN(Y11, Y13, 0)

	// v1 = (mm | v1 &^ (s1 &^ v2 | s2 &^ v3 | s3 &^ v4)) &^ s4 | nm &^ s1
	VPANDN Y11, Y1, Y5
	VPANDN Y10, Y2, Y12
	VPOR Y12, Y5, Y5
	VPANDN Y9, Y3, Y12
	VPOR Y12, Y5, Y5
	VPANDN Y0, Y5, Y0
	VPOR Y4, Y0, Y0
	VPANDN Y0, Y8, Y0
	VPANDN 288(AX), Y11, Y12
	VPOR Y12, Y0, Y0
	// v2 = (mm | v2 &^ (s1 &^ v3 | s2 &^ v4)) &^ s3
	VPANDN Y11, Y2, Y5
	VPANDN Y10, Y3, Y12
	VPOR Y12, Y5, Y5
	VPANDN Y1, Y5, Y1
	VPOR Y4, Y1, Y1
	VPANDN Y1, Y9, Y1
	// v3 = (mm | v3 &^ (s1 &^ v4)) &^ s2
	VPANDN Y11, Y3, Y5
	VPANDN Y2, Y5, Y2
	VPOR Y4, Y2, Y2
	VPANDN Y2, Y10, Y2
	// v4 = (mm | v4) &^ s1
	VPOR Y4, Y3, Y3
	VPANDN Y3, Y11, Y3

	// Lane 3's carries out: column t-3 of the row below the strip.
	VEXTRACTI128 $1, Y7, X5
	VPEXTRQ $1, X5, R10
	MOVB R10, (SI)(R8*1)
	INCQ R8
	JMP loop

done:
	VMOVDQU Y0, 0(AX)
	VMOVDQU Y1, 32(AX)
	VMOVDQU Y2, 64(AX)
	VMOVDQU Y3, 96(AX)
	VMOVDQU Y7, 256(AX)
	VZEROUPPER
	RET

// func cpuHasAVX2() bool
TEXT ·cpuHasAVX2(SB), NOSPLIT, $0-1
	MOVL $0, AX
	CPUID
	CMPL AX, $7
	JLT no
	MOVL $1, AX
	MOVL $0, CX
	CPUID
	ANDL $0x18000000, CX // OSXSAVE and AVX
	CMPL CX, $0x18000000
	JNE no
	MOVL $0, CX
	BYTE $0x0f; BYTE $0x01; BYTE $0xd0 // XGETBV
	ANDL $6, AX // the OS saves XMM and YMM state
	CMPL AX, $6
	JNE no
	MOVL $7, AX
	MOVL $0, CX
	CPUID
	ANDL $0x20, BX // AVX2
	JZ no
	MOVB $1, ret+0(FP)
	RET
no:
	MOVB $0, ret+0(FP)
	RET
