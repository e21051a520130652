/* Transpose an .npy file with a plan, planned by measuring, with wisdom.
 *
 *   transpose_npy IN.npy OUT.npy [WISDOM]
 *
 * Reads IN (any rank, any numeric dtype, C or Fortran order), reverses the
 * order of its dimensions (NumPy's a.T) and writes OUT atomically.  The plan
 * is made with HL_EFFORT_MEASURE: the planner times its candidates and keeps
 * the fastest.  What it learnt is saved to WISDOM (when given) and read back
 * by the next run, which then plans without measuring again.  The output is
 * checked by running the inverse plan and comparing with the input.
 */
#include <hyperlayout.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, hl_status st)
{
    fprintf(stderr, "transpose_npy: %s: %s\n", what, hl_strerror(st));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: transpose_npy IN.npy OUT.npy [WISDOM]\n");
        return 2;
    }
    const char *in_path = argv[1], *out_path = argv[2], *wisdom = argc > 3 ? argv[3] : NULL;

    /* what earlier runs learnt (a missing file is a first run) */
    if (wisdom) {
        FILE *f = fopen(wisdom, "r");
        if (f) {
            fclose(f);
            hl_status st = hl_wisdom_import_file(wisdom);
            if (st != HL_OK)
                return fail(wisdom, st);
        }
    }
    const int64_t known = hl_wisdom_count();

    hl_shape s;
    void *in = NULL;
    hl_status st = hl_npy_load(in_path, &s, &in);
    if (st != HL_OK)
        return fail(in_path, st);

    int perm[HL_MAX_RANK];
    for (int j = 0; j < s.rank; j++)
        perm[j] = s.rank - 1 - j;
    hl_plan_options opt = {0};
    opt.effort = HL_EFFORT_MEASURE;
    hl_plan *p = NULL, *back = NULL;
    st = hl_plan_permute(&p, &s, perm, &opt);
    if (st == HL_OK)
        st = hl_plan_inverse(&back, p);
    if (st != HL_OK)
        return fail("plan", st);

    const int64_t bytes = hl_shape_bytes(&s);
    void *out = malloc(bytes ? bytes : 1), *check = malloc(bytes ? bytes : 1);
    if (!out || !check)
        return fail("memory", HL_ERR_NOMEM);
    st = hl_execute(p, in, out);
    if (st == HL_OK)
        st = hl_execute(back, out, check);
    if (st != HL_OK)
        return fail("execute", st);
    if (memcmp(check, in, bytes) != 0) {
        fprintf(stderr, "transpose_npy: the inverse plan did not give the input back\n");
        return 1;
    }
    st = hl_npy_save(out_path, hl_plan_out_shape(p), out);
    if (st != HL_OK)
        return fail(out_path, st);
    if (wisdom && (st = hl_wisdom_export_file(wisdom)) != HL_OK)
        return fail(wisdom, st);

    char from[HL_SHAPE_NOTATION_MAX], to[HL_SHAPE_NOTATION_MAX];
    hl_shape_format(&s, from, sizeof from);
    hl_shape_format(hl_plan_out_shape(p), to, sizeof to);
    printf("%s %s -> %s %s; wisdom: %lld entries before, %lld after\n", in_path, from, out_path, to,
           (long long)known, (long long)hl_wisdom_count());
    hl_plan_destroy(p);
    hl_plan_destroy(back);
    free(in);
    free(out);
    free(check);
    return 0;
}
