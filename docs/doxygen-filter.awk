# Doxygen input filter for the public headers. The headers are written with plain C comments,
# which Doxygen ignores; this turns them into documentation comments as Doxygen reads them, so
# the headers' own comments are the API reference without a second comment syntax:
# - the comment that opens a header documents the file;
# - a comment that starts a line documents the declaration after it, and when several ND_API
#   (or static inline) declarations follow it with no blank line between ("NumPy's sum,
#   prod, nansum and mean.") they become one member group, whose comment Doxygen gives to
#   each of them (DISTRIBUTE_GROUP_DOC);
# - a comment after code on the same line documents that declaration (a field, an enum value,
#   a function);
# - section banners ("/* ---- creation ---- */") stay plain comments.
function trailing(line) {
  if (line ~ /^[[:space:]]*[^[:space:]\/].*[^[:space:]][[:space:]]+\/\* /)
    sub(/[[:space:]]+\/\* /, " /**< ", line)
  return line
}
function flush() {
  if (!pending) return
  if (napi >= 2) print "/**@{*/"
  printf "%s", buf
  if (napi >= 2) print "/**@}*/"
  pending = 0; buf = ""; napi = 0
}
NR == 1 && /^\/\* / { sub(/^\/\* /, "/** @file\n * "); print; next }
/^[[:space:]]*\/\* ---/ { flush(); print; next }
/^[[:space:]]*\/\* / {
  flush()
  sub(/\/\* /, "/** ")
  pending = 1; incomment = ($0 !~ /\*\//); buf = $0 "\n"
  next
}
pending && incomment { buf = buf $0 "\n"; if ($0 ~ /\*\//) incomment = 0; next }
pending && (/^[[:space:]]*$/ || /^[[:space:]]*#/) { flush(); print; next }
pending { $0 = trailing($0); buf = buf $0 "\n"; if ($0 ~ /ND_API|static inline/) napi++; next }
{ print trailing($0) }
END { flush() }
