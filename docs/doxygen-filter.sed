# Doxygen input filter for the public headers (sed -E). The headers are written with plain
# C comments, which Doxygen ignores; this turns them into documentation comments on the fly,
# so the headers' own comments are the API reference without a second comment syntax:
# - the comment that opens a header documents the file;
# - a comment that starts a line documents the declaration after it;
# - a comment after code on the same line documents that declaration (a field, an enum
#   value, a function);
# - section banners ("/* ---- creation ---- */") stay plain comments.
1s|^/\* |/** @file\n * |
/^[[:space:]]*\/\* -{3,}/b
s|^([[:space:]]*)/\* |\1/** |
s|^([[:space:]]*[^[:space:]/].*[^[:space:]])[[:space:]]+/\* |\1 /**< |
