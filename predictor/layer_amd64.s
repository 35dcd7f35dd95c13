#include "textflag.h"

// func gemm4x16(in *float32, ldIn int, w *float32, ldW int, bias *float32, out *float32, ldOut int, k int, relu bool)
//
// Y0..Y7 accumulate the 4×16 block (row r in Y(2r), Y(2r+1)), starting from
// the bias; per l, Y8 and Y9 hold w's 16 columns and Y10..Y13 each row's
// in[r][l] broadcast.
TEXT ·gemm4x16(SB), NOSPLIT, $0-65
	MOVQ in+0(FP), SI
	MOVQ ldIn+8(FP), R8
	SHLQ $2, R8
	MOVQ w+16(FP), DI
	MOVQ ldW+24(FP), R9
	SHLQ $2, R9
	MOVQ bias+32(FP), AX
	MOVQ out+40(FP), DX
	MOVQ ldOut+48(FP), R10
	SHLQ $2, R10
	MOVQ k+56(FP), CX

	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVAPS Y0, Y2
	VMOVAPS Y1, Y3
	VMOVAPS Y0, Y4
	VMOVAPS Y1, Y5
	VMOVAPS Y0, Y6
	VMOVAPS Y1, Y7

	LEAQ (SI)(R8*1), R11
	LEAQ (SI)(R8*2), R12
	LEAQ (R11)(R8*2), R13

	TESTQ CX, CX
	JZ    epilogue

loop:
	VMOVUPS      (DI), Y8
	VMOVUPS      32(DI), Y9
	VBROADCASTSS (SI), Y10
	VBROADCASTSS (R11), Y11
	VBROADCASTSS (R12), Y12
	VBROADCASTSS (R13), Y13
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         $4, SI
	ADDQ         $4, R11
	ADDQ         $4, R12
	ADDQ         $4, R13
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loop

epilogue:
	MOVBLZX relu+64(FP), AX
	TESTQ   AX, AX
	JZ      store
	VXORPS  Y15, Y15, Y15
	VMAXPS  Y0, Y15, Y0
	VMAXPS  Y1, Y15, Y1
	VMAXPS  Y2, Y15, Y2
	VMAXPS  Y3, Y15, Y3
	VMAXPS  Y4, Y15, Y4
	VMAXPS  Y5, Y15, Y5
	VMAXPS  Y6, Y15, Y6
	VMAXPS  Y7, Y15, Y7

store:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	ADDQ    R10, DX
	VMOVUPS Y2, (DX)
	VMOVUPS Y3, 32(DX)
	ADDQ    R10, DX
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ    R10, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	VZEROUPPER
	RET
