/* client/cmd_probes.c: `tracetap probes [--json] [--all]`: lists the debug probes plugged in,
 * with the OpenOCD arguments that select each one (interface config and serial), ready to
 * paste into tracetapd.json or an openocd command line. Uses probe/usb.h. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../probe/usb.h"
#include "cmd_probes.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: tracetap probes [--json] [--all]\n"
		   "List the debug probes plugged into this machine and the OpenOCD arguments\n"
		   "that select each one.\n\n"
		   "  --json   one JSON array (vid, pid, kind, name, serial, openocd_args, ...)\n"
		   "  --all    also list USB devices that are not known probes\n");
}

/* s as one shell word (single-quoted unless it is plain). */
static void shell_word(char *out, size_t len, const char *s)
{
	if (strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-:") ==
	    strlen(s)) {
		snprintf(out, len, "%s", s);
		return;
	}
	size_t o = 0;
	out[o++] = '\'';
	for (; *s && o + 6 < len; s++) {
		if (*s == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *s;
		}
	}
	out[o++] = '\'';
	out[o] = 0;
}

static void print_text(const struct tt_usb_probe *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct tt_usb_probe *p = &v[i];
		const struct tt_usb_match *m = &p->match;
		char serial[300];

		printf("%04x:%04x  %s", p->vid, p->pid, m->name);
		if (p->product[0])
			printf("  \"%s\"", p->product);
		printf("  serial %s  (usb %s)\n", p->serial[0] ? p->serial : "(unknown)",
		       p->location);
		if (m->openocd_cfg) {
			printf("    openocd -f %s", m->openocd_cfg);
			if (p->serial[0] && m->serial_cmd) {
				char cmd[300];
				snprintf(cmd, sizeof(cmd), "%s %s", m->serial_cmd, p->serial);
				shell_word(serial, sizeof(serial), cmd);
				printf(" -c %s", serial);
			}
			putchar('\n');
		}
		if (m->note)
			printf("    note: %s\n", m->note);
		if (p->access_error)
			printf("    %s\n", p->access_msg);
	}
}

static int print_json(const struct tt_usb_probe *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	char hex[8], cmd[300];

	for (size_t i = 0; i < n; i++) {
		const struct tt_usb_probe *p = &v[i];
		const struct tt_usb_match *m = &p->match;
		cJSON *o = cJSON_CreateObject();

		snprintf(hex, sizeof(hex), "%04x", p->vid);
		cJSON_AddStringToObject(o, "vid", hex);
		snprintf(hex, sizeof(hex), "%04x", p->pid);
		cJSON_AddStringToObject(o, "pid", hex);
		cJSON_AddStringToObject(o, "kind", tt_usb_kind_name(m->kind));
		cJSON_AddStringToObject(o, "name", m->name);
		cJSON_AddStringToObject(o, "manufacturer", p->manufacturer);
		cJSON_AddStringToObject(o, "product", p->product);
		cJSON_AddStringToObject(o, "serial", p->serial);
		cJSON_AddStringToObject(o, "location", p->location);
		cJSON *args = cJSON_AddArrayToObject(o, "openocd_args");
		if (m->openocd_cfg) {
			cJSON_AddItemToArray(args, cJSON_CreateString("-f"));
			cJSON_AddItemToArray(args, cJSON_CreateString(m->openocd_cfg));
			if (p->serial[0] && m->serial_cmd) {
				snprintf(cmd, sizeof(cmd), "%s %s", m->serial_cmd, p->serial);
				cJSON_AddItemToArray(args, cJSON_CreateString("-c"));
				cJSON_AddItemToArray(args, cJSON_CreateString(cmd));
			}
		}
		if (m->note)
			cJSON_AddStringToObject(o, "note", m->note);
		if (p->access_error)
			cJSON_AddStringToObject(o, "access_error", p->access_msg);
		cJSON_AddItemToArray(a, o);
	}
	char *s = cJSON_Print(a);
	cJSON_Delete(a);
	if (!s)
		return -ENOMEM;
	printf("%s\n", s);
	free(s);
	return 0;
}

int tt_cmd_probes(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned flags = 0;
	int json = 0, c;
	struct tt_usb_probe *v;
	size_t n;
	char err[256];

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'a': flags |= TT_USB_ALL; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tracetap probes: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	int rc = tt_usb_enumerate(flags, &v, &n, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "tracetap probes: %s\n", rc == -ENOMEM ? "out of memory" : err);
		return 1;
	}
	if (json) {
		rc = print_json(v, n);
	} else if (n == 0) {
		printf("no debug probes found%s (plugged in and powered? `lsusb` lists what the "
		       "system sees; --all lists every USB device)\n",
		       flags & TT_USB_ALL ? " and no other USB devices" : "");
	} else {
		print_text(v, n);
	}
	free(v);
	return rc < 0 ? 1 : 0;
}
