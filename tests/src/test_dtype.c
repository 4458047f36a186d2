/* Tests for src/dtype.c: dtype facts, names, promotion (NumPy 2 / NEP 50) and casting.
 *
 * The expected tables below are literal data derived from NumPy 2's documented promotion and
 * casting rules: they were produced once with NumPy 2.4 (numpy.promote_types,
 * numpy.can_cast(from, to, casting), and numpy.result_type with Python int/float/complex
 * scalars standing for the weak kinds) and pasted here, so the suite needs no Python at run
 * time. The implementation derives its answers from rules rather than from a copy of these
 * tables, so each table checks the rules. Every pair, every casting kind, every weak
 * combination and every triple of operands is covered. */
#include "tests/nd_test.h"

#include <limits.h>
#include <stdio.h>

#include "ndcuda/dtype.h"

/* Short spellings so that the tables stay readable: kind letter and itemsize as NumPy's
 * codes have them, PI/PF/PC for the weak Python int, float and complex. */
#define B ND_BOOL
#define I1 ND_INT8
#define I2 ND_INT16
#define I4 ND_INT32
#define I8 ND_INT64
#define U1 ND_UINT8
#define U2 ND_UINT16
#define U4 ND_UINT32
#define U8 ND_UINT64
#define F2 ND_FLOAT16
#define F4 ND_FLOAT32
#define F8 ND_FLOAT64
#define C8 ND_COMPLEX64
#define C16 ND_COMPLEX128
#define PI ND_PYINT
#define PF ND_PYFLOAT
#define PC ND_PYCOMPLEX

/* The seventeen operands of the exhaustive tests: the array dtypes in enum order, then the
 * weak kinds. */
#define NOPS 17
static const nd_dtype ops[NOPS] = {B,  I1, I2, I4, I8, U1, U2, U4, U8,
                                   F2, F4, F8, C8, C16, PI, PF, PC};

/* Values that are neither an array dtype nor a weak kind. -1 is converted to the enum the
 * way a caller's bad int would be. */
static const int bad_values[] = {14, 15, 63, 67, 99, -1, INT_MAX};
#define NBAD (int)(sizeof bad_values / sizeof bad_values[0])

/* A value that no function under test returns, to check that failures leave *out alone. */
#define SENTINEL ((nd_dtype)123)

/* np.promote_types(row, column). */
static const nd_dtype expected_promote[ND_NUM_DTYPES][ND_NUM_DTYPES] = {
    /*        B    I1   I2   I4   I8   U1   U2   U4   U8   F2   F4   F8   C8   C16 */
    /* B   */ {B,   I1,  I2,  I4,  I8,  U1,  U2,  U4,  U8,  F2,  F4,  F8,  C8,  C16},
    /* I1  */ {I1,  I1,  I2,  I4,  I8,  I2,  I4,  I8,  F8,  F2,  F4,  F8,  C8,  C16},
    /* I2  */ {I2,  I2,  I2,  I4,  I8,  I2,  I4,  I8,  F8,  F4,  F4,  F8,  C8,  C16},
    /* I4  */ {I4,  I4,  I4,  I4,  I8,  I4,  I4,  I8,  F8,  F8,  F8,  F8,  C16, C16},
    /* I8  */ {I8,  I8,  I8,  I8,  I8,  I8,  I8,  I8,  F8,  F8,  F8,  F8,  C16, C16},
    /* U1  */ {U1,  I2,  I2,  I4,  I8,  U1,  U2,  U4,  U8,  F2,  F4,  F8,  C8,  C16},
    /* U2  */ {U2,  I4,  I4,  I4,  I8,  U2,  U2,  U4,  U8,  F4,  F4,  F8,  C8,  C16},
    /* U4  */ {U4,  I8,  I8,  I8,  I8,  U4,  U4,  U4,  U8,  F8,  F8,  F8,  C16, C16},
    /* U8  */ {U8,  F8,  F8,  F8,  F8,  U8,  U8,  U8,  U8,  F8,  F8,  F8,  C16, C16},
    /* F2  */ {F2,  F2,  F4,  F8,  F8,  F2,  F4,  F8,  F8,  F2,  F4,  F8,  C8,  C16},
    /* F4  */ {F4,  F4,  F4,  F8,  F8,  F4,  F4,  F8,  F8,  F4,  F4,  F8,  C8,  C16},
    /* F8  */ {F8,  F8,  F8,  F8,  F8,  F8,  F8,  F8,  F8,  F8,  F8,  F8,  C16, C16},
    /* C8  */ {C8,  C8,  C8,  C16, C16, C8,  C8,  C16, C16, C8,  C8,  C16, C8,  C16},
    /* C16 */ {C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16},
};

/* np.can_cast(row, column, casting) for the five casting kinds, in nd_casting order. */
static const unsigned char expected_can_cast[5][ND_NUM_DTYPES][ND_NUM_DTYPES] = {
    /* no */
    {
        /* B   */ {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* I1  */ {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* I2  */ {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* I4  */ {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* I8  */ {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* U1  */ {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
        /* U2  */ {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
        /* U4  */ {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},
        /* U8  */ {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0},
        /* F2  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0},
        /* F4  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
        /* F8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0},
        /* C8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
        /* C16 */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    },
    /* equiv */
    {
        /* B   */ {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* I1  */ {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* I2  */ {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* I4  */ {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* I8  */ {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* U1  */ {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
        /* U2  */ {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
        /* U4  */ {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},
        /* U8  */ {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0},
        /* F2  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0},
        /* F4  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
        /* F8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0},
        /* C8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
        /* C16 */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    },
    /* safe */
    {
        /* B   */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* I1  */ {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        /* I2  */ {0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1},
        /* I4  */ {0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1},
        /* I8  */ {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1},
        /* U1  */ {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* U2  */ {0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1},
        /* U4  */ {0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1},
        /* U8  */ {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1},
        /* F2  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        /* F4  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
        /* F8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1},
        /* C8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
        /* C16 */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    },
    /* same_kind */
    {
        /* B   */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* I1  */ {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        /* I2  */ {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        /* I4  */ {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        /* I8  */ {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        /* U1  */ {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* U2  */ {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* U4  */ {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* U8  */ {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* F2  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        /* F4  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        /* F8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        /* C8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
        /* C16 */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
    },
    /* unsafe */
    {
        /* B   */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* I1  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* I2  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* I4  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* I8  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* U1  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* U2  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* U4  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* U8  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* F2  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* F4  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* F8  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* C8  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        /* C16 */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    },
};

/* np.result_type(row, 1), np.result_type(row, 1.0), np.result_type(row, 1j). */
static const nd_dtype expected_weak[ND_NUM_DTYPES][3] = {
    /* B   */ {I8, F8, C16},
    /* I1  */ {I1, F8, C16},
    /* I2  */ {I2, F8, C16},
    /* I4  */ {I4, F8, C16},
    /* I8  */ {I8, F8, C16},
    /* U1  */ {U1, F8, C16},
    /* U2  */ {U2, F8, C16},
    /* U4  */ {U4, F8, C16},
    /* U8  */ {U8, F8, C16},
    /* F2  */ {F2, F2, C8},
    /* F4  */ {F4, F4, C8},
    /* F8  */ {F8, F8, C16},
    /* C8  */ {C8, C8, C8},
    /* C16 */ {C16, C16, C16},
};

/* np.result_type(x, y, z) for every triple of the 17 operands (operand index 14, 15, 16 =
 * Python 1, 1.0, 1j), row (x, y), column z. */
static const unsigned char expected_triple[NOPS][NOPS][NOPS] = {
    {
        /* B B */ {B,I1,I2,I4,I8,U1,U2,U4,U8,F2,F4,F8,C8,C16,I8,F8,C16},
        /* B I1 */ {I1,I1,I2,I4,I8,I2,I4,I8,F8,F2,F4,F8,C8,C16,I1,F8,C16},
        /* B I2 */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F4,F4,F8,C8,C16,I2,F8,C16},
        /* B I4 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* B I8 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* B U1 */ {U1,I2,I2,I4,I8,U1,U2,U4,U8,F2,F4,F8,C8,C16,U1,F8,C16},
        /* B U2 */ {U2,I4,I4,I4,I8,U2,U2,U4,U8,F4,F4,F8,C8,C16,U2,F8,C16},
        /* B U4 */ {U4,I8,I8,I8,I8,U4,U4,U4,U8,F8,F8,F8,C16,C16,U4,F8,C16},
        /* B U8 */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* B F2 */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* B F4 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* B F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* B C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* B C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* B PI */ {I8,I1,I2,I4,I8,U1,U2,U4,U8,F2,F4,F8,C8,C16,I8,F8,C16},
        /* B PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F2,F4,F8,C8,C16,F8,F8,C16},
        /* B PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
    },
    {
        /* I1 B */ {I1,I1,I2,I4,I8,I2,I4,I8,F8,F2,F4,F8,C8,C16,I1,F8,C16},
        /* I1 I1 */ {I1,I1,I2,I4,I8,I2,I4,I8,F8,F2,F4,F8,C8,C16,I1,F8,C16},
        /* I1 I2 */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F4,F4,F8,C8,C16,I2,F8,C16},
        /* I1 I4 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* I1 I8 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I1 U1 */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F2,F4,F8,C8,C16,I2,F8,C16},
        /* I1 U2 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F4,F4,F8,C8,C16,I4,F8,C16},
        /* I1 U4 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I1 U8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I1 F2 */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* I1 F4 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* I1 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I1 C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* I1 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* I1 PI */ {I1,I1,I2,I4,I8,I2,I4,I8,F8,F2,F4,F8,C8,C16,I1,F8,C16},
        /* I1 PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F2,F4,F8,C8,C16,F8,F8,C16},
        /* I1 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
    },
    {
        /* I2 B */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F4,F4,F8,C8,C16,I2,F8,C16},
        /* I2 I1 */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F4,F4,F8,C8,C16,I2,F8,C16},
        /* I2 I2 */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F4,F4,F8,C8,C16,I2,F8,C16},
        /* I2 I4 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* I2 I8 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I2 U1 */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F4,F4,F8,C8,C16,I2,F8,C16},
        /* I2 U2 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F4,F4,F8,C8,C16,I4,F8,C16},
        /* I2 U4 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I2 U8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I2 F2 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* I2 F4 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* I2 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I2 C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* I2 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* I2 PI */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F4,F4,F8,C8,C16,I2,F8,C16},
        /* I2 PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F4,F4,F8,C8,C16,F8,F8,C16},
        /* I2 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
    },
    {
        /* I4 B */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* I4 I1 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* I4 I2 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* I4 I4 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* I4 I8 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I4 U1 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* I4 U2 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* I4 U4 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I4 U8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I4 F2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I4 F4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I4 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I4 C8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* I4 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* I4 PI */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* I4 PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I4 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
    },
    {
        /* I8 B */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I8 I1 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I8 I2 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I8 I4 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I8 I8 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I8 U1 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I8 U2 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I8 U4 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I8 U8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I8 F2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I8 F4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I8 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I8 C8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* I8 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* I8 PI */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* I8 PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* I8 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
    },
    {
        /* U1 B */ {U1,I2,I2,I4,I8,U1,U2,U4,U8,F2,F4,F8,C8,C16,U1,F8,C16},
        /* U1 I1 */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F2,F4,F8,C8,C16,I2,F8,C16},
        /* U1 I2 */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F4,F4,F8,C8,C16,I2,F8,C16},
        /* U1 I4 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* U1 I8 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* U1 U1 */ {U1,I2,I2,I4,I8,U1,U2,U4,U8,F2,F4,F8,C8,C16,U1,F8,C16},
        /* U1 U2 */ {U2,I4,I4,I4,I8,U2,U2,U4,U8,F4,F4,F8,C8,C16,U2,F8,C16},
        /* U1 U4 */ {U4,I8,I8,I8,I8,U4,U4,U4,U8,F8,F8,F8,C16,C16,U4,F8,C16},
        /* U1 U8 */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* U1 F2 */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* U1 F4 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* U1 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U1 C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* U1 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* U1 PI */ {U1,I2,I2,I4,I8,U1,U2,U4,U8,F2,F4,F8,C8,C16,U1,F8,C16},
        /* U1 PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F2,F4,F8,C8,C16,F8,F8,C16},
        /* U1 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
    },
    {
        /* U2 B */ {U2,I4,I4,I4,I8,U2,U2,U4,U8,F4,F4,F8,C8,C16,U2,F8,C16},
        /* U2 I1 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F4,F4,F8,C8,C16,I4,F8,C16},
        /* U2 I2 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F4,F4,F8,C8,C16,I4,F8,C16},
        /* U2 I4 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* U2 I8 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* U2 U1 */ {U2,I4,I4,I4,I8,U2,U2,U4,U8,F4,F4,F8,C8,C16,U2,F8,C16},
        /* U2 U2 */ {U2,I4,I4,I4,I8,U2,U2,U4,U8,F4,F4,F8,C8,C16,U2,F8,C16},
        /* U2 U4 */ {U4,I8,I8,I8,I8,U4,U4,U4,U8,F8,F8,F8,C16,C16,U4,F8,C16},
        /* U2 U8 */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* U2 F2 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* U2 F4 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* U2 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U2 C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* U2 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* U2 PI */ {U2,I4,I4,I4,I8,U2,U2,U4,U8,F4,F4,F8,C8,C16,U2,F8,C16},
        /* U2 PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F4,F4,F8,C8,C16,F8,F8,C16},
        /* U2 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
    },
    {
        /* U4 B */ {U4,I8,I8,I8,I8,U4,U4,U4,U8,F8,F8,F8,C16,C16,U4,F8,C16},
        /* U4 I1 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* U4 I2 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* U4 I4 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* U4 I8 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* U4 U1 */ {U4,I8,I8,I8,I8,U4,U4,U4,U8,F8,F8,F8,C16,C16,U4,F8,C16},
        /* U4 U2 */ {U4,I8,I8,I8,I8,U4,U4,U4,U8,F8,F8,F8,C16,C16,U4,F8,C16},
        /* U4 U4 */ {U4,I8,I8,I8,I8,U4,U4,U4,U8,F8,F8,F8,C16,C16,U4,F8,C16},
        /* U4 U8 */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* U4 F2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U4 F4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U4 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U4 C8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* U4 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* U4 PI */ {U4,I8,I8,I8,I8,U4,U4,U4,U8,F8,F8,F8,C16,C16,U4,F8,C16},
        /* U4 PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U4 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
    },
    {
        /* U8 B */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* U8 I1 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U8 I2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U8 I4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U8 I8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U8 U1 */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* U8 U2 */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* U8 U4 */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* U8 U8 */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* U8 F2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U8 F4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U8 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U8 C8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* U8 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* U8 PI */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* U8 PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* U8 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
    },
    {
        /* F2 B */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* F2 I1 */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* F2 I2 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F2 I4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F2 I8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F2 U1 */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* F2 U2 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F2 U4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F2 U8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F2 F2 */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* F2 F4 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F2 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F2 C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* F2 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* F2 PI */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* F2 PF */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* F2 PC */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
    },
    {
        /* F4 B */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F4 I1 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F4 I2 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F4 I4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F4 I8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F4 U1 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F4 U2 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F4 U4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F4 U8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F4 F2 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F4 F4 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F4 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F4 C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* F4 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* F4 PI */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F4 PF */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* F4 PC */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
    },
    {
        /* F8 B */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 I1 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 I2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 I4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 I8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 U1 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 U2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 U4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 U8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 F2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 F4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 C8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* F8 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* F8 PI */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* F8 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
    },
    {
        /* C8 B */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 I1 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 I2 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 I4 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C8 I8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C8 U1 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 U2 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 U4 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C8 U8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C8 F2 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 F4 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 F8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C8 C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C8 PI */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 PF */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* C8 PC */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
    },
    {
        /* C16 B */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 I1 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 I2 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 I4 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 I8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 U1 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 U2 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 U4 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 U8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 F2 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 F4 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 F8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 C8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 PI */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 PF */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* C16 PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
    },
    {
        /* PI B */ {I8,I1,I2,I4,I8,U1,U2,U4,U8,F2,F4,F8,C8,C16,I8,F8,C16},
        /* PI I1 */ {I1,I1,I2,I4,I8,I2,I4,I8,F8,F2,F4,F8,C8,C16,I1,F8,C16},
        /* PI I2 */ {I2,I2,I2,I4,I8,I2,I4,I8,F8,F4,F4,F8,C8,C16,I2,F8,C16},
        /* PI I4 */ {I4,I4,I4,I4,I8,I4,I4,I8,F8,F8,F8,F8,C16,C16,I4,F8,C16},
        /* PI I8 */ {I8,I8,I8,I8,I8,I8,I8,I8,F8,F8,F8,F8,C16,C16,I8,F8,C16},
        /* PI U1 */ {U1,I2,I2,I4,I8,U1,U2,U4,U8,F2,F4,F8,C8,C16,U1,F8,C16},
        /* PI U2 */ {U2,I4,I4,I4,I8,U2,U2,U4,U8,F4,F4,F8,C8,C16,U2,F8,C16},
        /* PI U4 */ {U4,I8,I8,I8,I8,U4,U4,U4,U8,F8,F8,F8,C16,C16,U4,F8,C16},
        /* PI U8 */ {U8,F8,F8,F8,F8,U8,U8,U8,U8,F8,F8,F8,C16,C16,U8,F8,C16},
        /* PI F2 */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* PI F4 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* PI F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* PI C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* PI C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* PI PI */ {I8,I1,I2,I4,I8,U1,U2,U4,U8,F2,F4,F8,C8,C16,I8,F8,C16},
        /* PI PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F2,F4,F8,C8,C16,F8,F8,C16},
        /* PI PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
    },
    {
        /* PF B */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F2,F4,F8,C8,C16,F8,F8,C16},
        /* PF I1 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F2,F4,F8,C8,C16,F8,F8,C16},
        /* PF I2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F4,F4,F8,C8,C16,F8,F8,C16},
        /* PF I4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* PF I8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* PF U1 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F2,F4,F8,C8,C16,F8,F8,C16},
        /* PF U2 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F4,F4,F8,C8,C16,F8,F8,C16},
        /* PF U4 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* PF U8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* PF F2 */ {F2,F2,F4,F8,F8,F2,F4,F8,F8,F2,F4,F8,C8,C16,F2,F2,C8},
        /* PF F4 */ {F4,F4,F4,F8,F8,F4,F4,F8,F8,F4,F4,F8,C8,C16,F4,F4,C8},
        /* PF F8 */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,F8,C16,C16,F8,F8,C16},
        /* PF C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* PF C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* PF PI */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F2,F4,F8,C8,C16,F8,F8,C16},
        /* PF PF */ {F8,F8,F8,F8,F8,F8,F8,F8,F8,F2,F4,F8,C8,C16,F8,F8,C16},
        /* PF PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
    },
    {
        /* PC B */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
        /* PC I1 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
        /* PC I2 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
        /* PC I4 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* PC I8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* PC U1 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
        /* PC U2 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
        /* PC U4 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* PC U8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* PC F2 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* PC F4 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* PC F8 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* PC C8 */ {C8,C8,C8,C16,C16,C8,C8,C16,C16,C8,C8,C16,C8,C16,C8,C8,C8},
        /* PC C16 */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16,C16},
        /* PC PI */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
        /* PC PF */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
        /* PC PC */ {C16,C16,C16,C16,C16,C16,C16,C16,C16,C8,C8,C16,C8,C16,C16,C16,C16},
    },
};

/* np.result_type over longer mixes, including orders where a pairwise left fold of
 * promote_types would give a wider dtype than NumPy does. */
typedef struct long_case {
  int n;
  nd_dtype in[6];
  nd_dtype want;
} long_case;

static const long_case long_cases[] = {
    {4, {I1, U1, F2, B}, F2},
    {4, {F2, I2, U2, I1}, F4},
    {5, {U2, I1, F4, U1, B}, F4},
    {4, {I2, U2, C8, PF}, C8},
    {4, {I1, U2, F2, PI}, F4},
    {4, {U8, I1, PF, F2}, F8},
    {4, {I8, U8, F4, PI}, F8},
    {4, {B, PI, PF, PC}, C16},
    {5, {PI, PC, PF, PI, PI}, C16},
    {5, {F2, PC, U1, I1, PI}, C8},
    {5, {B, B, B, PI, B}, I8},
    {6, {U1, PI, U1, PI, U1, PI}, U1},
    {6, {F4, I2, PC, U1, B, PF}, C8},
    {3, {C8, F8, PI}, C16},
    {4, {U4, I4, F2, PF}, F8},
};

/* ---- dtype facts ------------------------------------------------------------------------ */

typedef struct dtype_fact {
  nd_dtype dtype;
  const char *name;
  size_t itemsize;
  char kind;
} dtype_fact;

static const dtype_fact facts[NOPS] = {
    {B, "bool", 1, 'b'},        {I1, "int8", 1, 'i'},         {I2, "int16", 2, 'i'},
    {I4, "int32", 4, 'i'},      {I8, "int64", 8, 'i'},        {U1, "uint8", 1, 'u'},
    {U2, "uint16", 2, 'u'},     {U4, "uint32", 4, 'u'},       {U8, "uint64", 8, 'u'},
    {F2, "float16", 2, 'f'},    {F4, "float32", 4, 'f'},      {F8, "float64", 8, 'f'},
    {C8, "complex64", 8, 'c'},  {C16, "complex128", 16, 'c'}, {PI, "int", 0, 'i'},
    {PF, "float", 0, 'f'},      {PC, "complex", 0, 'c'},
};

START_TEST(test_valid_and_weak) {
  for (int v = -3; v <= 200; v++) {
    nd_dtype d = (nd_dtype)v;
    ck_assert_int_eq(nd_dtype_is_valid(d), v >= 0 && v < ND_NUM_DTYPES);
    ck_assert_int_eq(nd_dtype_is_weak(d), v == ND_PYINT || v == ND_PYFLOAT || v == ND_PYCOMPLEX);
  }
  ck_assert_int_eq(nd_dtype_is_valid((nd_dtype)INT_MAX), 0);
  ck_assert_int_eq(nd_dtype_is_weak((nd_dtype)INT_MAX), 0);
}
END_TEST

START_TEST(test_facts) {
  for (int i = 0; i < NOPS; i++) {
    const dtype_fact *f = &facts[i];
    ck_assert_msg(nd_dtype_itemsize(f->dtype) == f->itemsize, "itemsize of %s", f->name);
    ck_assert_str_eq(nd_dtype_name(f->dtype), f->name);
    ck_assert_int_eq(nd_dtype_kind(f->dtype), f->kind);
  }
  /* The kind characters are NumPy's and the enum says so. */
  ck_assert_int_eq(ND_KIND_BOOL, 'b');
  ck_assert_int_eq(ND_KIND_INT, 'i');
  ck_assert_int_eq(ND_KIND_UINT, 'u');
  ck_assert_int_eq(ND_KIND_FLOAT, 'f');
  ck_assert_int_eq(ND_KIND_COMPLEX, 'c');
}
END_TEST

START_TEST(test_facts_invalid) {
  for (int i = 0; i < NBAD; i++) {
    nd_dtype d = (nd_dtype)bad_values[i];
    ck_assert_msg(nd_dtype_itemsize(d) == 0, "itemsize of %d", bad_values[i]);
    ck_assert_str_eq(nd_dtype_name(d), "invalid");
    ck_assert_int_eq(nd_dtype_kind(d), 0);
  }
}
END_TEST

/* ---- names ------------------------------------------------------------------------------ */

START_TEST(test_from_name_round_trip) {
  /* Every array dtype's own name parses back to it; the weak kinds' names ("int", "float",
   * "complex") are NumPy's names of int64, float64 and complex128. */
  for (int i = 0; i < NOPS; i++) {
    nd_dtype got = SENTINEL;
    ND_ASSERT_OK(nd_dtype_from_name(facts[i].name, &got));
    nd_dtype want = facts[i].dtype == ND_PYINT ? I8 : facts[i].dtype == ND_PYFLOAT ? F8
                    : facts[i].dtype == ND_PYCOMPLEX ? C16 : facts[i].dtype;
    ck_assert_msg(got == want, "'%s' parsed as %d", facts[i].name, (int)got);
  }
}
END_TEST

/* Every spelling numpy.dtype accepts for ndcuda's dtypes (NumPy 2.4, x86-64 Linux), produced
 * with: names = sctypeDict keys + typecodes['All'] + kind+size codes, each also after '<', '>',
 * '=' and '|'; kept where np.dtype(name) succeeds, is native and is one of the 14 dtypes. */
START_TEST(test_from_name_aliases) {
  static const struct {
    const char *name;
    nd_dtype dtype;
  } aliases[] = {
      {"<?", B}, {"<B", U1}, {"<D", C16}, {"<F", C8}, {"<H", U2}, {"<I", U4}, {"<L", U8}, {"<N",
      U8}, {"<P", U8}, {"<Q", U8}, {"<b", I1}, {"<b1", B}, {"<c16", C16}, {"<c8", C8}, {"<d",
      F8}, {"<e", F2}, {"<f", F4}, {"<f2", F2}, {"<f4", F4}, {"<f8", F8}, {"<h", I2}, {"<i",
      I4}, {"<i1", I1}, {"<i2", I2}, {"<i4", I4}, {"<i8", I8}, {"<l", I8}, {"<n", I8}, {"<p",
      I8}, {"<q", I8}, {"<u1", U1}, {"<u2", U2}, {"<u4", U4}, {"<u8", U8}, {"=?", B}, {"=B",
      U1}, {"=D", C16}, {"=F", C8}, {"=H", U2}, {"=I", U4}, {"=L", U8}, {"=N", U8}, {"=P", U8},
      {"=Q", U8}, {"=b", I1}, {"=b1", B}, {"=c16", C16}, {"=c8", C8}, {"=d", F8}, {"=e", F2},
      {"=f", F4}, {"=f2", F2}, {"=f4", F4}, {"=f8", F8}, {"=h", I2}, {"=i", I4}, {"=i1", I1},
      {"=i2", I2}, {"=i4", I4}, {"=i8", I8}, {"=l", I8}, {"=n", I8}, {"=p", I8}, {"=q", I8},
      {"=u1", U1}, {"=u2", U2}, {"=u4", U4}, {"=u8", U8}, {">?", B}, {">B", U1}, {">b", I1},
      {">b1", B}, {">i1", I1}, {">u1", U1}, {"?", B}, {"B", U1}, {"D", C16}, {"F", C8}, {"H",
      U2}, {"I", U4}, {"L", U8}, {"N", U8}, {"P", U8}, {"Q", U8}, {"b", I1}, {"b1", B}, {"bool",
      B}, {"bool_", B}, {"byte", I1}, {"c16", C16}, {"c8", C8}, {"cdouble", C16}, {"complex",
      C16}, {"complex128", C16}, {"complex64", C8}, {"csingle", C8}, {"d", F8}, {"double", F8},
      {"e", F2}, {"f", F4}, {"f2", F2}, {"f4", F4}, {"f8", F8}, {"float", F8}, {"float16", F2},
      {"float32", F4}, {"float64", F8}, {"h", I2}, {"half", F2}, {"i", I4}, {"i1", I1}, {"i2",
      I2}, {"i4", I4}, {"i8", I8}, {"int", I8}, {"int16", I2}, {"int32", I4}, {"int64", I8},
      {"int8", I1}, {"int_", I8}, {"intc", I4}, {"intp", I8}, {"l", I8}, {"long", I8},
      {"longlong", I8}, {"n", I8}, {"p", I8}, {"q", I8}, {"short", I2}, {"single", F4}, {"u1",
      U1}, {"u2", U2}, {"u4", U4}, {"u8", U8}, {"ubyte", U1}, {"uint", U8}, {"uint16", U2},
      {"uint32", U4}, {"uint64", U8}, {"uint8", U1}, {"uintc", U4}, {"uintp", U8}, {"ulong",
      U8}, {"ulonglong", U8}, {"ushort", U2}, {"|?", B}, {"|B", U1}, {"|D", C16}, {"|F", C8},
      {"|H", U2}, {"|I", U4}, {"|L", U8}, {"|N", U8}, {"|P", U8}, {"|Q", U8}, {"|b", I1},
      {"|b1", B}, {"|c16", C16}, {"|c8", C8}, {"|d", F8}, {"|e", F2}, {"|f", F4}, {"|f2", F2},
      {"|f4", F4}, {"|f8", F8}, {"|h", I2}, {"|i", I4}, {"|i1", I1}, {"|i2", I2}, {"|i4", I4},
      {"|i8", I8}, {"|l", I8}, {"|n", I8}, {"|p", I8}, {"|q", I8}, {"|u1", U1}, {"|u2", U2},
      {"|u4", U4}, {"|u8", U8}
  };
  ck_assert_int_eq(sizeof aliases / sizeof aliases[0], 179);
  /* The size after a kind is read as strtol reads it (found by tests/numpy/api_numpy.py). */
  static const struct {
    const char *name;
    nd_dtype dtype;
  } sized[] = {{"f08", F8}, {"f 8", F8}, {"f+8", F8}, {"<f 8", F8}, {"c016", C16}, {"i\t4", I4},
               {"b 1", B}, {">i 1", I1}, {"u 01", U1}, {"f\n2", F2}};
  for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
    nd_dtype got = SENTINEL;
    ND_ASSERT_OK(nd_dtype_from_name(sized[i].name, &got));
    ck_assert_msg(got == sized[i].dtype, "'%s' parsed as %d", sized[i].name, (int)got);
  }
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    nd_dtype got = SENTINEL;
    ND_ASSERT_OK(nd_dtype_from_name(aliases[i].name, &got));
    ck_assert_msg(got == aliases[i].dtype, "'%s' parsed as %d", aliases[i].name, (int)got);
  }
}
END_TEST

/* Names NumPy refuses, and names of dtypes ndcuda does not have (float128, strings, objects,
 * big-endian data). */
START_TEST(test_from_name_bad) {
  static const char *bad[] = {"",          "Float32", "FLOAT32", "float32 ", " int8",   "float128",
                              "int128",    "c32",     "f16",     "i3",       "u",      "float_",
                              "complex_",  "longdouble", "object", "str",    "int8\t", "complex256",
                              "datetime64", "c",      ">f8",     ">i2",      "<int8",  "=float",
                              "g",         "G",       "i16",     "b2",       "Int64",  "<<f8",
                              "<",         "f-8",     "f_8",     "f 8x",     "f0x8",   "f0",
                              ">f 8"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    nd_dtype got = SENTINEL;
    ND_ASSERT_FAILS(nd_dtype_from_name(bad[i], &got), ND_ERR_DTYPE, "nd_dtype_from_name");
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
    ck_assert_msg(strstr(nd_last_error(), quoted) != NULL, "message '%s' does not name %s",
                  nd_last_error(), quoted);
    ck_assert_int_eq(got, SENTINEL);
  }
  /* A long name is cut in the message, not overflowed. */
  char longname[300];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  nd_dtype got = SENTINEL;
  ND_ASSERT_FAILS(nd_dtype_from_name(longname, &got), ND_ERR_DTYPE, "xxxxxxxxxxxxxxxx");
  ck_assert_int_eq(got, SENTINEL);
}
END_TEST

START_TEST(test_from_name_null) {
  nd_dtype got = SENTINEL;
  ND_ASSERT_FAILS(nd_dtype_from_name(NULL, &got), ND_ERR_NULL_POINTER, "nd_dtype_from_name");
  ck_assert_int_eq(got, SENTINEL);
  ND_ASSERT_FAILS(nd_dtype_from_name("float32", NULL), ND_ERR_NULL_POINTER,
                  "nd_dtype_from_name");
}
END_TEST

/* ---- promote_types ---------------------------------------------------------------------- */

/* One loop iteration per row, so that a wrong row is reported on its own. */
START_TEST(test_promote_table) {
  nd_dtype a = (nd_dtype)_i;
  for (int j = 0; j < ND_NUM_DTYPES; j++) {
    nd_dtype b = (nd_dtype)j;
    nd_dtype got = SENTINEL;
    ND_ASSERT_OK(nd_promote_types(a, b, &got));
    ck_assert_msg(got == expected_promote[_i][j], "promote_types(%s, %s) = %s, NumPy gives %s",
                  nd_dtype_name(a), nd_dtype_name(b), nd_dtype_name(got),
                  nd_dtype_name(expected_promote[_i][j]));
  }
}
END_TEST

START_TEST(test_promote_weak) {
  for (int i = 0; i < ND_NUM_DTYPES; i++) {
    nd_dtype s = (nd_dtype)i;
    for (int k = 0; k < 3; k++) {
      nd_dtype w = ops[ND_NUM_DTYPES + k];
      nd_dtype want = expected_weak[i][k];
      nd_dtype got = SENTINEL;
      ND_ASSERT_OK(nd_promote_types(s, w, &got));
      ck_assert_msg(got == want, "promote_types(%s, %s) = %s, NumPy gives %s", nd_dtype_name(s),
                    nd_dtype_name(w), nd_dtype_name(got), nd_dtype_name(want));
      got = SENTINEL;
      ND_ASSERT_OK(nd_promote_types(w, s, &got));
      ck_assert_msg(got == want, "promote_types(%s, %s) = %s, NumPy gives %s", nd_dtype_name(w),
                    nd_dtype_name(s), nd_dtype_name(got), nd_dtype_name(want));
    }
  }
}
END_TEST

/* Two weak kinds stay weak: the higher kind wins and a later array dtype decides the width. */
START_TEST(test_promote_weak_weak) {
  static const nd_dtype want[3][3] = {
      {PI, PF, PC},
      {PF, PF, PC},
      {PC, PC, PC},
  };
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      nd_dtype got = SENTINEL;
      ND_ASSERT_OK(nd_promote_types(ops[ND_NUM_DTYPES + i], ops[ND_NUM_DTYPES + j], &got));
      ck_assert_int_eq(got, want[i][j]);
    }
  }
}
END_TEST

START_TEST(test_promote_bad) {
  for (int i = 0; i < NBAD; i++) {
    nd_dtype bad = (nd_dtype)bad_values[i];
    char value[48];
    snprintf(value, sizeof value, "(value %d)", bad_values[i]);
    for (int j = 0; j < NOPS; j++) {
      nd_dtype got = SENTINEL;
      ND_ASSERT_FAILS(nd_promote_types(bad, ops[j], &got), ND_ERR_DTYPE, "nd_promote_types");
      ck_assert_ptr_nonnull(strstr(nd_last_error(), "'a'"));
      ck_assert_ptr_nonnull(strstr(nd_last_error(), value));
      ND_ASSERT_FAILS(nd_promote_types(ops[j], bad, &got), ND_ERR_DTYPE, "nd_promote_types");
      ck_assert_ptr_nonnull(strstr(nd_last_error(), "'b'"));
      ck_assert_ptr_nonnull(strstr(nd_last_error(), value));
      ck_assert_int_eq(got, SENTINEL);
    }
  }
  ND_ASSERT_FAILS(nd_promote_types(I8, U8, NULL), ND_ERR_NULL_POINTER, "nd_promote_types");
  ND_ASSERT_FAILS(nd_promote_types(PI, F2, NULL), ND_ERR_NULL_POINTER, "nd_promote_types");
}
END_TEST

/* ---- can_cast --------------------------------------------------------------------------- */

/* One loop iteration per casting kind. */
START_TEST(test_can_cast_table) {
  nd_casting casting = (nd_casting)_i;
  for (int i = 0; i < ND_NUM_DTYPES; i++) {
    for (int j = 0; j < ND_NUM_DTYPES; j++) {
      int got = nd_can_cast((nd_dtype)i, (nd_dtype)j, casting);
      ck_assert_msg(got == expected_can_cast[_i][i][j],
                    "can_cast(%s, %s, '%s') = %d, NumPy gives %d", nd_dtype_name((nd_dtype)i),
                    nd_dtype_name((nd_dtype)j), nd_casting_name(casting), got,
                    expected_can_cast[_i][i][j]);
    }
  }
}
END_TEST

START_TEST(test_can_cast_invalid) {
  static const int bad_casting[] = {-1, 5, 99};
  for (int c = 0; c < 5; c++) {
    for (int j = 0; j < NOPS; j++) {
      for (int w = ND_NUM_DTYPES; w < NOPS; w++) {
        ck_assert_int_eq(nd_can_cast(ops[w], ops[j], (nd_casting)c), 0);
        ck_assert_int_eq(nd_can_cast(ops[j], ops[w], (nd_casting)c), 0);
      }
      for (int b = 0; b < NBAD; b++) {
        ck_assert_int_eq(nd_can_cast((nd_dtype)bad_values[b], ops[j], (nd_casting)c), 0);
        ck_assert_int_eq(nd_can_cast(ops[j], (nd_dtype)bad_values[b], (nd_casting)c), 0);
      }
    }
  }
  for (size_t k = 0; k < sizeof bad_casting / sizeof bad_casting[0]; k++)
    for (int i = 0; i < ND_NUM_DTYPES; i++)
      ck_assert_int_eq(nd_can_cast((nd_dtype)i, (nd_dtype)i, (nd_casting)bad_casting[k]), 0);
}
END_TEST

START_TEST(test_casting_name) {
  ck_assert_str_eq(nd_casting_name(ND_CASTING_NO), "no");
  ck_assert_str_eq(nd_casting_name(ND_CASTING_EQUIV), "equiv");
  ck_assert_str_eq(nd_casting_name(ND_CASTING_SAFE), "safe");
  ck_assert_str_eq(nd_casting_name(ND_CASTING_SAME_KIND), "same_kind");
  ck_assert_str_eq(nd_casting_name(ND_CASTING_UNSAFE), "unsafe");
  ck_assert_str_eq(nd_casting_name((nd_casting)5), "invalid");
  ck_assert_str_eq(nd_casting_name((nd_casting)-1), "invalid");
}
END_TEST

/* ---- result_type ------------------------------------------------------------------------ */

static nd_dtype weak_default(nd_dtype w) {
  return w == PI ? I8 : w == PF ? F8 : C16;
}

START_TEST(test_result_type_one) {
  for (int i = 0; i < NOPS; i++) {
    nd_dtype got = SENTINEL;
    ND_ASSERT_OK(nd_result_type(1, &ops[i], &got));
    nd_dtype want = i < ND_NUM_DTYPES ? ops[i] : weak_default(ops[i]);
    ck_assert_msg(got == want, "result_type(%s) = %s", nd_dtype_name(ops[i]), nd_dtype_name(got));
  }
}
END_TEST

/* Pairs: two array dtypes follow promote_types, a mix follows the weak table, and two weak
 * kinds give the default dtype of the higher kind (np.result_type(1, 1.0) is float64). */
START_TEST(test_result_type_pairs) {
  for (int i = 0; i < NOPS; i++) {
    for (int j = 0; j < NOPS; j++) {
      nd_dtype in[2] = {ops[i], ops[j]};
      nd_dtype want;
      if (i < ND_NUM_DTYPES && j < ND_NUM_DTYPES)
        want = expected_promote[i][j];
      else if (i < ND_NUM_DTYPES)
        want = expected_weak[i][j - ND_NUM_DTYPES];
      else if (j < ND_NUM_DTYPES)
        want = expected_weak[j][i - ND_NUM_DTYPES];
      else
        want = weak_default(i > j ? ops[i] : ops[j]);
      nd_dtype got = SENTINEL;
      ND_ASSERT_OK(nd_result_type(2, in, &got));
      ck_assert_msg(got == want, "result_type(%s, %s) = %s, NumPy gives %s",
                    nd_dtype_name(in[0]), nd_dtype_name(in[1]), nd_dtype_name(got),
                    nd_dtype_name(want));
    }
  }
}
END_TEST

/* Every triple of the seventeen operands, one loop iteration per first operand. */
START_TEST(test_result_type_triples) {
  for (int j = 0; j < NOPS; j++) {
    for (int k = 0; k < NOPS; k++) {
      nd_dtype in[3] = {ops[_i], ops[j], ops[k]};
      nd_dtype want = (nd_dtype)expected_triple[_i][j][k];
      nd_dtype got = SENTINEL;
      ND_ASSERT_OK(nd_result_type(3, in, &got));
      ck_assert_msg(got == want, "result_type(%s, %s, %s) = %s, NumPy gives %s",
                    nd_dtype_name(in[0]), nd_dtype_name(in[1]), nd_dtype_name(in[2]),
                    nd_dtype_name(got), nd_dtype_name(want));
    }
  }
}
END_TEST

START_TEST(test_result_type_long) {
  for (size_t c = 0; c < sizeof long_cases / sizeof long_cases[0]; c++) {
    const long_case *lc = &long_cases[c];
    nd_dtype got = SENTINEL;
    ND_ASSERT_OK(nd_result_type(lc->n, lc->in, &got));
    ck_assert_msg(got == lc->want, "long case %zu: got %s, NumPy gives %s", c,
                  nd_dtype_name(got), nd_dtype_name(lc->want));
  }
  /* Many copies of one operand change nothing. */
  nd_dtype many[100];
  for (int i = 0; i < NOPS; i++) {
    for (int k = 0; k < 100; k++) many[k] = ops[i];
    nd_dtype got = SENTINEL;
    ND_ASSERT_OK(nd_result_type(100, many, &got));
    ck_assert_int_eq(got, i < ND_NUM_DTYPES ? ops[i] : weak_default(ops[i]));
  }
}
END_TEST

START_TEST(test_result_type_bad) {
  nd_dtype in[3] = {I1, F4, PI};
  nd_dtype got = SENTINEL;
  ND_ASSERT_FAILS(nd_result_type(3, in, NULL), ND_ERR_NULL_POINTER, "nd_result_type");
  ND_ASSERT_FAILS(nd_result_type(3, NULL, &got), ND_ERR_NULL_POINTER, "nd_result_type");
  ND_ASSERT_FAILS(nd_result_type(0, in, &got), ND_ERR_INVALID_ARGUMENT, "nd_result_type");
  ND_ASSERT_FAILS(nd_result_type(-3, in, &got), ND_ERR_INVALID_ARGUMENT, "(got -3)");
  ND_ASSERT_FAILS(nd_result_type(0, NULL, &got), ND_ERR_INVALID_ARGUMENT, "nd_result_type");
  ck_assert_int_eq(got, SENTINEL);
  for (int b = 0; b < NBAD; b++) {
    char value[48];
    snprintf(value, sizeof value, "(value %d)", bad_values[b]);
    for (int pos = 0; pos < 3; pos++) {
      nd_dtype mix[3] = {I1, F4, PI};
      mix[pos] = (nd_dtype)bad_values[b];
      char where[32];
      snprintf(where, sizeof where, "dtypes[%d]", pos);
      ND_ASSERT_FAILS(nd_result_type(3, mix, &got), ND_ERR_DTYPE, "nd_result_type");
      ck_assert_ptr_nonnull(strstr(nd_last_error(), where));
      ck_assert_ptr_nonnull(strstr(nd_last_error(), value));
      ck_assert_int_eq(got, SENTINEL);
    }
  }
}
END_TEST

static Suite *dtype_suite(void) {
  Suite *s = suite_create("dtype");
  TCase *tc = tcase_create("facts");
  tcase_add_test(tc, test_valid_and_weak);
  tcase_add_test(tc, test_facts);
  tcase_add_test(tc, test_facts_invalid);
  suite_add_tcase(s, tc);

  tc = tcase_create("names");
  tcase_add_test(tc, test_from_name_round_trip);
  tcase_add_test(tc, test_from_name_aliases);
  tcase_add_test(tc, test_from_name_bad);
  tcase_add_test(tc, test_from_name_null);
  suite_add_tcase(s, tc);

  tc = tcase_create("promote_types");
  tcase_add_loop_test(tc, test_promote_table, 0, ND_NUM_DTYPES);
  tcase_add_test(tc, test_promote_weak);
  tcase_add_test(tc, test_promote_weak_weak);
  tcase_add_test(tc, test_promote_bad);
  suite_add_tcase(s, tc);

  tc = tcase_create("can_cast");
  tcase_add_loop_test(tc, test_can_cast_table, ND_CASTING_NO, ND_CASTING_UNSAFE + 1);
  tcase_add_test(tc, test_can_cast_invalid);
  tcase_add_test(tc, test_casting_name);
  suite_add_tcase(s, tc);

  tc = tcase_create("result_type");
  tcase_add_test(tc, test_result_type_one);
  tcase_add_test(tc, test_result_type_pairs);
  tcase_add_loop_test(tc, test_result_type_triples, 0, NOPS);
  tcase_add_test(tc, test_result_type_long);
  tcase_add_test(tc, test_result_type_bad);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main(dtype_suite()); }
