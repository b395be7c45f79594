/* tests/service/test_usb_table.c: the probe classifier (probe/usb_table.c) on known ids,
 * CMSIS-DAP by strings, FTDI by product string, unknown devices; and the udev rules file
 * (argv[1]) covering every fixed vid:pid of the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "usb.h"

static struct tt_usb_match m;

static bool classify(uint16_t vid, uint16_t pid, const char *product, bool v1, bool v2)
{
	struct tt_usb_ident id = { .vid = vid, .pid = pid, .product = product,
				   .dap_v1_interface = v1, .dap_v2_interface = v2 };
	return tt_usb_classify(&id, &m);
}

static void test_ids(void)
{
	static const struct { uint16_t vid, pid; enum tt_usb_kind kind; const char *cfg; } known[] = {
		{ 0x0483, 0x3748, TT_USB_STLINK_V2, "interface/stlink.cfg" },
		{ 0x0483, 0x374b, TT_USB_STLINK_V21, "interface/stlink.cfg" },
		{ 0x0483, 0x374a, TT_USB_STLINK_V21, "interface/stlink.cfg" },
		{ 0x0483, 0x3752, TT_USB_STLINK_V21, "interface/stlink.cfg" },
		{ 0x0483, 0x374e, TT_USB_STLINK_V3, "interface/stlink.cfg" },
		{ 0x0483, 0x374f, TT_USB_STLINK_V3, "interface/stlink.cfg" },
		{ 0x0483, 0x3753, TT_USB_STLINK_V3, "interface/stlink.cfg" },
		{ 0x0483, 0x3754, TT_USB_STLINK_V3, "interface/stlink.cfg" },
		{ 0x0483, 0x3757, TT_USB_STLINK_V3, "interface/stlink.cfg" },
		{ 0x0483, 0x374d, TT_USB_STLINK_LOADER, NULL },
		{ 0x1366, 0x0101, TT_USB_JLINK, "interface/jlink.cfg" },
		{ 0x1366, 0x0105, TT_USB_JLINK, "interface/jlink.cfg" },
		{ 0x1366, 0x1015, TT_USB_JLINK, "interface/jlink.cfg" },
		{ 0x1366, 0x1020, TT_USB_JLINK, "interface/jlink.cfg" },
		{ 0x1366, 0x1050, TT_USB_JLINK, "interface/jlink.cfg" },
		{ 0x1366, 0x1061, TT_USB_JLINK, "interface/jlink.cfg" },
		{ 0x1d50, 0x6018, TT_USB_BLACKMAGIC, NULL },
		{ 0x2e8a, 0x000c, TT_USB_CMSIS_DAP_V2, "interface/cmsis-dap.cfg" },
		{ 0x303a, 0x1001, TT_USB_ESP_USB_JTAG, "interface/esp_usb_jtag.cfg" },
		{ 0x1a86, 0x8010, TT_USB_WCH_LINK_RISCV, NULL },
		{ 0x1a86, 0x8011, TT_USB_CMSIS_DAP_V1, "interface/cmsis-dap.cfg" },
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		CHECK(classify(known[i].vid, known[i].pid, NULL, false, false));
		CHECK_EQ(m.kind, known[i].kind);
		CHECK_STR(m.openocd_cfg, known[i].cfg);
		CHECK_STR(m.serial_cmd, known[i].cfg ? "adapter serial" : NULL);
	}
	/* Notes where the user must know something. */
	classify(0x1d50, 0x6018, NULL, false, false);
	CHECK(m.note && strstr(m.note, "GDB server"));
	classify(0x1a86, 0x8010, NULL, false, false);
	CHECK(m.note && strstr(m.note, "wlinke"));
	/* WCH-Link in DAP mode: the interfaces decide v1/v2 when read. */
	classify(0x1a86, 0x8012, NULL, false, true);
	CHECK_EQ(m.kind, TT_USB_CMSIS_DAP_V2);
}

static void test_unknown(void)
{
	CHECK(!classify(0x046d, 0xc52b, "USB Receiver", false, false)); /* a mouse receiver */
	CHECK_EQ(m.kind, TT_USB_UNKNOWN);
	CHECK_STR(m.name, "unknown");
	CHECK(m.openocd_cfg == NULL);
	CHECK(!classify(0x0483, 0x5740, "STM32 Virtual ComPort", false, false));
	CHECK(!classify(0x1366, 0x0100, NULL, false, false)); /* outside J-Link's id blocks */
	CHECK(!classify(0x0403, 0x6001, "FT232R USB UART", false, false)); /* serial cable */
	CHECK(!tt_usb_known_id(0x046d, 0xc52b));
	CHECK(tt_usb_known_id(0x0483, 0x3748));
}

static void test_cmsis_dap_strings(void)
{
	CHECK(classify(0xc251, 0xf002, "LPC-Link CMSIS-DAP", false, false));
	CHECK_EQ(m.kind, TT_USB_CMSIS_DAP_V1);
	CHECK_STR(m.openocd_cfg, "interface/cmsis-dap.cfg");
	CHECK(classify(0x0d28, 0x0204, "DAPLink CMSIS-DAP", true, true));
	CHECK_EQ(m.kind, TT_USB_CMSIS_DAP_V2);
	CHECK_STR(m.name, "CMSIS-DAP v2");
	/* Only an interface string says it (product string unreadable or generic). */
	CHECK(classify(0x1234, 0x5678, NULL, false, true));
	CHECK_EQ(m.kind, TT_USB_CMSIS_DAP_V2);
	CHECK(classify(0x1234, 0x5678, "Some board", true, false));
	CHECK_EQ(m.kind, TT_USB_CMSIS_DAP_V1);
	CHECK(!classify(0x1234, 0x5678, "CMSIS DAP lookalike", false, false));
}

static void test_ftdi(void)
{
	CHECK(classify(0x0403, 0x6010, "Dual RS232-HS", false, false));
	CHECK_EQ(m.kind, TT_USB_FTDI);
	CHECK(m.openocd_cfg == NULL);
	CHECK(m.note && strstr(m.note, "FTDI: choose the interface/ftdi/*.cfg for your adapter"));
	CHECK_STR(m.serial_cmd, "adapter serial");
	CHECK(classify(0x0403, 0x6014, "Digilent Adept USB Device", false, false));
	CHECK_STR(m.openocd_cfg, "interface/ftdi/digilent-hs2.cfg");
	CHECK(classify(0x0403, 0x6010, "Digilent Adept USB Device", false, false));
	CHECK_STR(m.openocd_cfg, "interface/ftdi/digilent-hs1.cfg");
	CHECK(classify(0x0403, 0x6010, "Tigard V1.1", false, false));
	CHECK_STR(m.openocd_cfg, "interface/ftdi/tigard.cfg");
	CHECK(m.note == NULL);
	CHECK(classify(0x0403, 0x6011, NULL, false, false)); /* strings unreadable */
	CHECK(m.openocd_cfg == NULL);
}

/* Every fixed id is matched by a rule for that vid:pid, or by a vendor-wide rule. */
static void test_rules(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long len;

	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	CHECK(fread(text, 1, (size_t)len, f) == (size_t)len);
	fclose(f);
	CHECK(strstr(text, "ATTRS{product}==\"*CMSIS-DAP*\"") != NULL);

	const uint16_t(*ids)[3];
	size_t n = tt_usb_id_table(&ids);
	CHECK(n > 10);
	for (size_t i = 0; i < n; i++) {
		char vendor_wide[96], one[128];
		snprintf(vendor_wide, sizeof(vendor_wide), "ATTRS{idVendor}==\"%04x\", MODE", ids[i][0]);
		if (strstr(text, vendor_wide))
			continue;
		for (unsigned pid = ids[i][1]; pid <= ids[i][2]; pid++) {
			snprintf(one, sizeof(one), "ATTRS{idVendor}==\"%04x\", ATTRS{idProduct}==\"%04x\"",
				 ids[i][0], pid);
			if (!strstr(text, one)) {
				FAIL("%s: no rule for %04x:%04x", path, ids[i][0], pid);
			}
		}
	}
	free(text);
}

int main(int argc, char **argv)
{
	test_ids();
	test_unknown();
	test_cmsis_dap_strings();
	test_ftdi();
	if (argc > 1)
		test_rules(argv[1]);
	else
		CHECK(!"usage: test_usb_table RULES_FILE");
	return tt_test_done();
}
