/* Host suite for src/config.c: the parsing of each kind of entry, the table's own consistency,
 * the test hook, and that the README's "Environment" table is the configuration table row for
 * row (so that neither can change without the other). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/internal.h"
#include "tests/nd_test.h"

START_TEST(flag_parsing) {
  ck_assert_int_eq(nd__config_parse_flag("0", 1), 0);
  ck_assert_int_eq(nd__config_parse_flag("off", 1), 0);
  ck_assert_int_eq(nd__config_parse_flag("FALSE", 1), 0);
  ck_assert_int_eq(nd__config_parse_flag("No", 1), 0);
  ck_assert_int_eq(nd__config_parse_flag("1", 0), 1);
  ck_assert_int_eq(nd__config_parse_flag("yes", 0), 1);
  ck_assert_int_eq(nd__config_parse_flag("", 7), 7);
  ck_assert_int_eq(nd__config_parse_flag(NULL, 0), 0);
  ck_assert_int_eq(nd__config_parse_flag(NULL, 1), 1);
}
END_TEST

START_TEST(size_parsing) {
  int64_t v = -1;
  ck_assert(nd__config_parse_size("1073741824", 0, &v) && v == 1073741824);
  ck_assert(nd__config_parse_size("512M", 0, &v) && v == 512ll << 20);
  ck_assert(nd__config_parse_size("2g", 0, &v) && v == 2ll << 30);
  ck_assert(nd__config_parse_size("2GiB", 0, &v) && v == 2ll << 30);
  ck_assert(nd__config_parse_size("1.5K", 0, &v) && v == 1536);
  ck_assert(nd__config_parse_size("3T", 0, &v) && v == 3ll << 40);
  ck_assert(nd__config_parse_size("50%", 1000, &v) && v == 500);
  ck_assert(nd__config_parse_size("0", 0, &v) && v == 0);
  v = -1;
  /* unparsable values leave the output alone */
  ck_assert(!nd__config_parse_size("50%", 0, &v)); /* no total to take a percentage of */
  ck_assert(!nd__config_parse_size("lots", 0, &v));
  ck_assert(!nd__config_parse_size("-1G", 0, &v));
  ck_assert(!nd__config_parse_size("2X", 0, &v));
  ck_assert(!nd__config_parse_size("2Gbytes", 0, &v));
  ck_assert(!nd__config_parse_size("", 0, &v));
  ck_assert(!nd__config_parse_size(NULL, 0, &v));
  ck_assert_int_eq(v, -1);
}
END_TEST

START_TEST(table_is_consistent) {
  ck_assert_ptr_null(nd__config_entry(ND__CFG_COUNT));
  ck_assert_ptr_null(nd__config_entry((nd__cfg)-1));
  for (int i = 0; i < ND__CFG_COUNT; i++) {
    const nd__cfg_entry *e = nd__config_entry((nd__cfg)i);
    ck_assert_ptr_nonnull(e);
    ck_assert_msg(strncmp(e->name, "ND_", 3) == 0 || strncmp(e->name, "CUDA_", 5) == 0, "%s", e->name);
    ck_assert_msg(e->doc[0] != '\0' && e->values[0] != '\0' && e->def[0] != '\0', "%s", e->name);
    for (int j = 0; j < i; j++) ck_assert_str_ne(e->name, nd__config_entry((nd__cfg)j)->name);
    /* every default reads back in its own kind's syntax */
    int64_t v = 0;
    if (e->kind == ND__CFG_KIND_FLAG)
      ck_assert_msg(!strcmp(e->def, "0") || !strcmp(e->def, "1"), "%s: %s", e->name, e->def);
    if (e->kind == ND__CFG_KIND_SIZE) ck_assert_msg(nd__config_parse_size(e->def, 0, &v), "%s", e->name);
  }
  int64_t gib = 1ll << 30;
  /* documented defaults, read where the environment leaves them unset (CTest sets none) */
  if (getenv("ND_CACHE_MAX_BYTES") == NULL) ck_assert_int_eq(nd__config_size(ND__CFG_CACHE_MAX_BYTES, 0), gib);
  if (getenv("ND_GPU_MEMORY_LIMIT") == NULL) ck_assert_int_eq(nd__config_size(ND__CFG_GPU_MEMORY_LIMIT, gib), 0);
  if (getenv("ND_CACHE") == NULL) ck_assert_str_eq(nd__config_text(ND__CFG_CACHE), "disk");
  if (getenv("ND_SEED") == NULL) ck_assert_ptr_null(nd__config_text(ND__CFG_SEED));
  if (getenv("ND_AUTO_EVENTS") == NULL) ck_assert_int_eq(nd__config_flag(ND__CFG_AUTO_EVENTS), 1);
  if (getenv("ND_CACHE_DIR") == NULL) {
    const char *d = nd__config_text(ND__CFG_CACHE_DIR), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    char want[4096] = "";
    if (x != NULL && x[0] == '/') snprintf(want, sizeof want, "%s/ndcuda", x);
    else if (h != NULL && h[0] != '\0') snprintf(want, sizeof want, "%s/.cache/ndcuda", h);
    if (want[0]) ck_assert_str_eq(d, want);
    else ck_assert_ptr_null(d);
  }
}
END_TEST

START_TEST(environment_is_read_once) {
  /* the environment was read at the first getter above or here; later changes do not count */
  const int before = nd__config_flag(ND__CFG_SOLVE_RBT);
  setenv("ND_SOLVE_RBT", before ? "0" : "1", 1);
  ck_assert_int_eq(nd__config_flag(ND__CFG_SOLVE_RBT), before);
  /* the test hook does, and NULL reads as unset (the default, 1) */
  nd__config_override(ND__CFG_SOLVE_RBT, "off");
  ck_assert_int_eq(nd__config_flag(ND__CFG_SOLVE_RBT), 0);
  nd__config_override(ND__CFG_SOLVE_RBT, NULL);
  ck_assert_int_eq(nd__config_flag(ND__CFG_SOLVE_RBT), 1);
  nd__config_override(ND__CFG_CACHE_MAX_BYTES, "64M");
  ck_assert_int_eq(nd__config_size(ND__CFG_CACHE_MAX_BYTES, 0), 64ll << 20);
  nd__config_override(ND__CFG_CACHE_MAX_BYTES, "much");
  ck_assert_int_eq(nd__config_size(ND__CFG_CACHE_MAX_BYTES, 0), 1ll << 30);
  nd__config_override(ND__CFG_GPU_MEMORY_LIMIT, "25%");
  ck_assert_int_eq(nd__config_size(ND__CFG_GPU_MEMORY_LIMIT, 4000), 1000);
  nd__config_override(ND__CFG_CACHE, "memory");
  ck_assert_str_eq(nd__config_text(ND__CFG_CACHE), "memory");
  nd__config_override(ND__CFG_CACHE, "");
  ck_assert_str_eq(nd__config_text(ND__CFG_CACHE), "disk");
  ck_assert_ptr_null(nd__config_value(ND__CFG_CACHE));
  nd__config_override(ND__CFG_CACHE, "sideways");
  ck_assert_str_eq(nd__config_value(ND__CFG_CACHE), "sideways");
  /* a reload reads the environment as it is now */
  setenv("ND_SOLVE_RBT", "0", 1);
  setenv("ND_CACHE", "memory", 1);
  nd__config_reload();
  ck_assert_int_eq(nd__config_flag(ND__CFG_SOLVE_RBT), 0);
  ck_assert_str_eq(nd__config_text(ND__CFG_CACHE), "memory");
  unsetenv("ND_CACHE");
  unsetenv("ND_SOLVE_RBT");
  nd__config_reload();
  ck_assert_int_eq(nd__config_flag(ND__CFG_SOLVE_RBT), 1);
}
END_TEST

/* The README row of entry e, as the README writes it. */
static void readme_row(const nd__cfg_entry *e, char *buf, size_t cap) {
  const int quote = e->def[0] != '`' && strcmp(e->def, "unset") != 0;
  snprintf(buf, cap, "| `%s` | %s | %s%s%s | %s |", e->name, e->values, quote ? "`" : "", e->def,
           quote ? "`" : "", e->doc);
}

START_TEST(readme_table_matches) {
  FILE *f = fopen(ND_SOURCE_DIR "/README.md", "r");
  ck_assert_msg(f != NULL, "cannot open %s", ND_SOURCE_DIR "/README.md");
  char line[2048];
  int in_section = 0, row = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "## ", 3) == 0) in_section = strcmp(line, "## Environment") == 0;
    if (!in_section || strncmp(line, "| `", 3) != 0) continue;
    ck_assert_msg(row < ND__CFG_COUNT, "README row %d has no table entry: %s", row + 1, line);
    char want[2048];
    readme_row(nd__config_entry((nd__cfg)row), want, sizeof want);
    ck_assert_msg(strcmp(line, want) == 0, "README row %d:\n  %s\nsrc/config.h says:\n  %s", row + 1, line, want);
    row++;
  }
  fclose(f);
  ck_assert_msg(row == ND__CFG_COUNT, "README's environment table has %d rows, src/config.h %d", row,
                (int)ND__CFG_COUNT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("config");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, flag_parsing);
  tcase_add_test(tc, size_parsing);
  tcase_add_test(tc, table_is_consistent);
  tcase_add_test(tc, environment_is_read_once);
  tcase_add_test(tc, readme_table_matches);
  suite_add_tcase(s, tc);
  return nd_test_main(s);
}
