/* The configuration table of config.h: the one place that reads the environment. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/config.h"

static const nd__cfg_entry nd__cfg_table[ND__CFG_COUNT] = {
#define ND__CFG_ROW(id, name, kind, values, def, doc) {name, ND__CFG_KIND_##kind, values, def, doc},
    ND__CONFIG_TABLE(ND__CFG_ROW)
#undef ND__CFG_ROW
};

int nd__config_ready;
int nd__config_flags[ND__CFG_COUNT];
/* Each entry's text: the variable's value (a copy taken at load), else NULL. */
static char *nd__cfg_values[ND__CFG_COUNT];
static pthread_once_t nd__cfg_once = PTHREAD_ONCE_INIT;
static char *nd__cfg_cache_dir;

const nd__cfg_entry *nd__config_entry(nd__cfg id) {
  return (unsigned)id < ND__CFG_COUNT ? &nd__cfg_table[id] : NULL;
}

int nd__config_parse_flag(const char *v, int def) {
  if (v == NULL || v[0] == '\0') return def;
  if (!strcasecmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "off") || !strcasecmp(v, "no"))
    return 0;
  return 1;
}

int nd__config_parse_size(const char *v, int64_t total, int64_t *out) {
  if (v == NULL || *v == '\0') return 0;
  char *end = NULL;
  double x = strtod(v, &end);
  if (end == v || !(x >= 0)) return 0;
  while (isspace((unsigned char)*end)) end++;
  double mult = 1;
  switch (toupper((unsigned char)*end)) {
    case '%':
      if (total <= 0 || end[1] != '\0') return 0;
      *out = (int64_t)(x / 100.0 * (double)total);
      return 1;
    case 'K': mult = 1024.0; break;
    case 'M': mult = 1024.0 * 1024; break;
    case 'G': mult = 1024.0 * 1024 * 1024; break;
    case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
    case '\0': break;
    default: return 0;
  }
  /* one suffix letter, optionally followed by "iB" or "B" ("2G", "2GiB", "2GB") */
  if (*end != '\0') {
    const char *rest = end + 1;
    if (strcasecmp(rest, "") && strcasecmp(rest, "b") && strcasecmp(rest, "ib")) return 0;
  }
  double bytes = x * mult;
  *out = bytes >= 9.2e18 ? INT64_MAX : (int64_t)bytes;
  return 1;
}

static void nd__cfg_set(nd__cfg id, const char *text) {
  free(nd__cfg_values[id]);
  nd__cfg_values[id] = (text != NULL && text[0] != '\0') ? strdup(text) : NULL;
  const nd__cfg_entry *e = &nd__cfg_table[id];
  if (e->kind == ND__CFG_KIND_FLAG)
    nd__config_flags[id] = nd__config_parse_flag(nd__cfg_values[id], nd__config_parse_flag(e->def, 0));
}

static void nd__cfg_read_all(void) {
  for (int i = 0; i < ND__CFG_COUNT; i++) nd__cfg_set((nd__cfg)i, getenv(nd__cfg_table[i].name));
  /* ND_CACHE_DIR's default comes from the XDG base-directory variables. */
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char buf[4096];
  int n = -1;
  if (xdg != NULL && xdg[0] == '/') n = snprintf(buf, sizeof buf, "%s/ndcuda", xdg);
  else if (home != NULL && home[0] != '\0') n = snprintf(buf, sizeof buf, "%s/.cache/ndcuda", home);
  if (n > 0 && (size_t)n < sizeof buf) nd__cfg_cache_dir = strdup(buf);
  __atomic_store_n(&nd__config_ready, 1, __ATOMIC_RELEASE);
}

void nd__config_load(void) { pthread_once(&nd__cfg_once, nd__cfg_read_all); }

const char *nd__config_text(nd__cfg id) {
  nd__config_load();
  if (nd__cfg_values[id] != NULL) return nd__cfg_values[id];
  if (id == ND__CFG_CACHE_DIR) return nd__cfg_cache_dir;
  const char *def = nd__cfg_table[id].def;
  return strcmp(def, "unset") == 0 ? NULL : def;
}

int64_t nd__config_size(nd__cfg id, int64_t total) {
  nd__config_load();
  int64_t v = 0;
  if (nd__config_parse_size(nd__cfg_values[id], total, &v)) return v;
  (void)nd__config_parse_size(nd__cfg_table[id].def, total, &v);
  return v;
}

const char *nd__config_value(nd__cfg id) {
  nd__config_load();
  return (unsigned)id < ND__CFG_COUNT ? nd__cfg_values[id] : NULL;
}

void nd__config_reload(void) {
  nd__config_load();
  free(nd__cfg_cache_dir);
  nd__cfg_cache_dir = NULL;
  nd__cfg_read_all();
}

void nd__config_override(nd__cfg id, const char *text) {
  nd__config_load();
  if ((unsigned)id < ND__CFG_COUNT) nd__cfg_set(id, text);
}
