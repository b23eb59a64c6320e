/*
 * utf8.h - UTF-8 well-formedness, shared by the lexer (string literals,
 * comments) and the runtime's --set and device-profile parsers: text that
 * reaches JSON or CSV output must be Unicode.
 */
#ifndef SPACERT_UTF8_H
#define SPACERT_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Checks UTF-8 well-formedness (no overlongs, surrogates or > U+10FFFF). */
static inline bool utf8_valid(const char *s, size_t n, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		unsigned c = p[i];
		size_t len;
		unsigned min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			len = 2; min = 0x80; c &= 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			len = 3; min = 0x800; c &= 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			len = 4; min = 0x10000; c &= 0x07;
		} else {
			*bad = i;
			return false;
		}
		if (i + len > n) {
			*bad = i;
			return false;
		}
		for (size_t k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80) {
				*bad = i;
				return false;
			}
			c = (c << 6) | (p[i + k] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
			*bad = i;
			return false;
		}
		i += len;
	}
	return true;
}

#endif
