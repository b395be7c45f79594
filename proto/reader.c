/* proto/reader.c: the table of trace formats (see reader.h). */
#include "reader.h"

#include <string.h>

extern const struct tt_reader_ops tt_threadx_reader;
extern const struct tt_reader_ops tt_qnx_reader;
extern const struct tt_reader_ops tt_nuttx_reader;

static const struct tt_reader_ops *const readers[] = {
	&tt_threadx_reader, /* the first is the default format */
	&tt_nuttx_reader,
	&tt_qnx_reader,
};

const struct tt_reader_ops *tt_reader_find(const char *format)
{
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		if (!strcmp(readers[i]->name, format))
			return readers[i];
	return NULL;
}

const struct tt_reader_ops *tt_reader_at(size_t i)
{
	return i < sizeof(readers) / sizeof(readers[0]) ? readers[i] : NULL;
}

const struct tt_reader_ops *tt_reader_default(void)
{
	return readers[0];
}

const char *tt_reader_elf_symbol(const struct tt_reader_ops *r, const void *cfg)
{
	return r->elf_symbol_for ? r->elf_symbol_for(cfg) : r->elf_symbol;
}

const struct tt_reader_ops *tt_reader_for_stream(const char *spec)
{
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		const char *sc = readers[i]->stream_scheme;
		size_t n = sc ? strlen(sc) : 0;

		if (n && !strncmp(spec, sc, n) && spec[n] == ':')
			return readers[i];
	}
	return NULL;
}

const struct tt_reader_ops *tt_reader_detect(const uint8_t *head, size_t len)
{
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		if (readers[i]->detect && readers[i]->detect(head, len))
			return readers[i];
	return NULL;
}

size_t tt_reader_help(char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		const char *h = readers[i]->cfg_help;
		size_t hl = h ? strlen(h) : 0;

		if (!h)
			continue;
		if (n + hl < len)
			memcpy(buf + n, h, hl + 1);
		else if (n < len)
			buf[n] = 0;
		n += hl;
	}
	return n;
}

const char *tt_reader_names(void)
{
	return "threadx, qnx, nuttx";
}
