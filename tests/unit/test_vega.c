/*
 * test_vega — Vega FEM's .U and .cub files (lib/vega.c) against small
 * hand-made files whose bytes are spelled out here, from the layouts of
 * Vega's matrixIO (ModalMatrix: int32 rows, int32 columns, column-major
 * doubles) and StVKReducedInternalForces (int32 r, r, r(r+1)/2,
 * r(r+1)(r+2)/6; coefficients [output][term]); read back bit for bit; bad
 * files refused with their reason.
 */
#include "helpers.h"
#include "cubic.h"
#include "vega.h"

/* A double that is a small integer, little-endian: six zero bytes and its
 * top two (hi: the IEEE sign, exponent and leading mantissa bits). */
#define D(hi) 0, 0, 0, 0, 0, 0, (hi) & 0xff, (hi) >> 8
#define I32(v) (v), 0, 0, 0

/* 1.0, 2.0, ... 18.0 as their top 16 bits */
enum {
    ONE = 0x3ff0, TWO = 0x4000, THREE = 0x4008, FOUR = 0x4010, FIVE = 0x4014, SIX = 0x4018, SEVEN = 0x401c,
    EIGHT = 0x4020, NINE = 0x4022, TEN = 0x4024, ELEVEN = 0x4026, TWELVE = 0x4028, THIRTEEN = 0x402a,
    FOURTEEN = 0x402c, FIFTEEN = 0x402e, SIXTEEN = 0x4030, SEVENTEEN = 0x4031, EIGHTEEN = 0x4032
};

static const unsigned char *file_bytes(const char *path, long *n)
{
    static unsigned char buf[4096];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    *n = (long)fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

/* A basis of r = 2 vectors on nv = 1 vertex: /basis/U = [[1 2 3] [4 5 6]]. */
static void basis_bytes(void **state)
{
    (void)state;
    static const unsigned char want[] = {I32(3), I32(2), /* 3nv rows, r columns */
                                         D(ONE), D(TWO), D(THREE), /* column 0: basis vector 0 */
                                         D(FOUR), D(FIVE), D(SIX)};
    const double U[6] = {1, 2, 3, 4, 5, 6};
    const char *path = scratch("b.U");
    FILE *f = fopen(path, "wb");
    ep_vega_write_basis(f, U, 2, 3);
    fclose(f);
    long n;
    const unsigned char *got = file_bytes(path, &n);
    assert_int_equal(n, sizeof want);
    assert_memory_equal(got, want, sizeof want);

    double *V = NULL;
    int r;
    long len;
    assert_int_equal(ep_vega_read_basis(write_scratch("h.U", (const char *)want, sizeof want), &V, &r, &len), EP_OK);
    assert_int_equal(r, 2);
    assert_int_equal(len, 3);
    assert_memory_equal(V, U, sizeof U);
    free(V);
}

/* r = 2: P = [[1 2] [3 4]] (row i: the coefficients of q_i in R_0, R_1),
 * Q rows (0,0), (0,1), (1,1) = [5 6], [7 8], [9 10], S rows (0,0,0),
 * (0,0,1), (0,1,1), (1,1,1) = [11 12] ... [17 18].  Vega stores them per
 * output: R_0's terms, then R_1's. */
static void cubic_bytes(void **state)
{
    (void)state;
    static const unsigned char want[] = {
        I32(2), I32(2), I32(3), I32(4),                                       /* r, r, pairs, triples */
        D(ONE), D(THREE), D(TWO), D(FOUR),                                    /* linear: R_0 (q0 q1), R_1 */
        D(FIVE), D(SEVEN), D(NINE), D(SIX), D(EIGHT), D(TEN),                 /* quadratic */
        D(ELEVEN), D(THIRTEEN), D(FIFTEEN), D(SEVENTEEN),                     /* cubic, R_0 */
        D(TWELVE), D(FOURTEEN), D(SIXTEEN), D(EIGHTEEN)};                    /* cubic, R_1 */
    ep_cubic c = {0}, back = {0};
    assert_int_equal(ep_cubic_alloc(&c, 2), EP_OK);
    for (int i = 0; i < 4; i++)
        c.P[i] = 1 + i;
    for (int i = 0; i < 6; i++)
        c.Q[i] = 5 + i;
    for (int i = 0; i < 8; i++)
        c.S[i] = 11 + i;
    const char *path = scratch("c.cub");
    FILE *f = fopen(path, "wb");
    assert_int_equal(ep_vega_write_cubic(f, &c), EP_OK);
    fclose(f);
    long n;
    const unsigned char *got = file_bytes(path, &n);
    assert_int_equal(n, sizeof want);
    assert_memory_equal(got, want, sizeof want);

    assert_int_equal(ep_vega_read_cubic(write_scratch("h.cub", (const char *)want, sizeof want), &back), EP_OK);
    assert_int_equal(back.r, 2);
    assert_memory_equal(back.P, c.P, 4 * sizeof(double));
    assert_memory_equal(back.Q, c.Q, 6 * sizeof(double));
    assert_memory_equal(back.S, c.S, 8 * sizeof(double));
    ep_cubic_free(&back);

    /* The force Vega evaluates from its layout equals ours (R = sum of terms). */
    double q[2] = {0.5, -2}, R[2], w[16];
    ep_cubic_force(&c, q, R, w);
    const double *L = (const double *)(want + 16), *Qv = L + 4, *Sv = Qv + 6;
    for (int o = 0; o < 2; o++) {
        double qq[3] = {q[0] * q[0], q[0] * q[1], q[1] * q[1]};
        double qqq[4] = {q[0] * qq[0], q[0] * qq[1], q[0] * qq[2], q[1] * qq[2]};
        double v = L[2 * o] * q[0] + L[2 * o + 1] * q[1];
        for (int t = 0; t < 3; t++)
            v += Qv[3 * o + t] * qq[t];
        for (int t = 0; t < 4; t++)
            v += Sv[4 * o + t] * qqq[t];
        assert_true(fabs(v - R[o]) <= 1e-14 * fabs(R[o]));
    }
    ep_cubic_free(&c);
}

/* Our term order is the one of Vega's position formulas
 * (StVKReducedInternalForces.h: quadraticCoefPos, cubicCoefPos). */
static void term_order(void **state)
{
    (void)state;
    for (int r = 1; r <= 7; r++)
        for (int i = 0; i < r; i++)
            for (int j = i; j < r; j++) {
                assert_int_equal(ep_cubic_pair(r, i, j), i * r - i * (i + 1) / 2 + j);
                for (int k = j; k < r; k++)
                    assert_int_equal(ep_cubic_triple(r, i, j, k),
                                     -j + (i - j) * (-1 + i + j) / 2 + k + (j - i) * r +
                                         i * (2 - 3 * i + i * i + 6 * r - 3 * i * r + 3 * r * r) / 6);
            }
}

static void bad_files(void **state)
{
    (void)state;
    static const unsigned char short_u[] = {I32(3), I32(2), D(ONE)};
    static const unsigned char not_3[] = {I32(4), I32(1), D(ONE), D(ONE), D(ONE), D(ONE)};
    static const unsigned char nan_u[] = {I32(3), I32(1), D(ONE), D(0x7ff8), D(ONE)};
    static const unsigned char bad_cub[] = {I32(2), I32(2), I32(3), I32(5)};
    double *U = NULL;
    int r;
    long len;
    ep_cubic c = {0};
    expect_error(ep_vega_read_basis(write_scratch("s.U", (const char *)short_u, sizeof short_u), &U, &r, &len),
                 EP_EINPUT, "s.U: 16 bytes, a 3 x 2 Vega matrix has 56", NULL);
    expect_error(ep_vega_read_basis(write_scratch("n.U", (const char *)not_3, sizeof not_3), &U, &r, &len),
                 EP_EINPUT, "header 4 x 1 is not a Vega basis", NULL);
    expect_error(ep_vega_read_basis(write_scratch("x.U", (const char *)nan_u, sizeof nan_u), &U, &r, &len),
                 EP_EINPUT, "basis value 2 is not finite", NULL);
    expect_error(ep_vega_read_basis(write_scratch("e.U", "", 0), &U, &r, &len), EP_EINPUT, "shorter than the 8-byte",
                 NULL);
    expect_error(ep_vega_read_basis(scratch("missing.U"), &U, &r, &len), EP_EIO, "missing.U: cannot open", NULL);
    assert_null(U);
    expect_error(ep_vega_read_cubic(write_scratch("b.cub", (const char *)bad_cub, sizeof bad_cub), &c), EP_EINPUT,
                 "header 2 2 3 5 is not r, r, r(r+1)/2", NULL);
    ep_cubic_free(&c);
}

EP_TEST_MAIN("vega", cmocka_unit_test(basis_bytes), cmocka_unit_test(cubic_bytes), cmocka_unit_test(term_order), cmocka_unit_test(bad_files))
