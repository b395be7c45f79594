/* probe/usb_table.c: debug probe identification from USB ids and strings (pure; see usb.h).
 *
 * Sources for the ids (checked, not remembered): OpenOCD 0.12's contrib/60-openocd.rules and
 * its interface config files (hla_vid_pid, ftdi vid_pid / device_desc, espusbjtag vid_pid),
 * OpenOCD's ST-Link driver PID list (0x3744..0x3757), the Black Magic Probe and Raspberry Pi
 * Debug Probe ids, WCH-Link's mode ids (8010 RISC-V, 8011/8012 CMSIS-DAP). The udev rules in
 * systemd/60-tracetap-probes.rules must cover every fixed id here: tests/service checks it.
 */
#include <string.h>

#include "usb.h"

struct id_entry {
	uint16_t vid, pid_first, pid_last;
	enum tt_usb_kind kind;
	const char *name;
	const char *cfg;
	const char *note;
};

#define STLINK_CFG "interface/stlink.cfg"
#define DAP_CFG "interface/cmsis-dap.cfg"
#define SERIAL_CMD "adapter serial"

static const struct id_entry id_table[] = {
	{ 0x0483, 0x3748, 0x3748, TT_USB_STLINK_V2, "ST-Link V2", STLINK_CFG, NULL },
	{ 0x0483, 0x374a, 0x374a, TT_USB_STLINK_V21, "ST-Link V2-1", STLINK_CFG,
	  "0483:374a is not in the id list of OpenOCD 0.12's interface/stlink.cfg: if OpenOCD "
	  "does not find it, add -c \"hla_vid_pid 0x0483 0x374a\" after that -f" },
	{ 0x0483, 0x374b, 0x374b, TT_USB_STLINK_V21, "ST-Link V2-1", STLINK_CFG, NULL },
	{ 0x0483, 0x3752, 0x3752, TT_USB_STLINK_V21, "ST-Link V2-1", STLINK_CFG, NULL },
	{ 0x0483, 0x374d, 0x374d, TT_USB_STLINK_LOADER, "ST-Link V3 (firmware loader)", NULL,
	  "in firmware-update mode: replug it, or finish the update with STM32CubeProgrammer" },
	{ 0x0483, 0x374e, 0x374f, TT_USB_STLINK_V3, "ST-Link V3", STLINK_CFG, NULL },
	{ 0x0483, 0x3753, 0x3754, TT_USB_STLINK_V3, "ST-Link V3", STLINK_CFG, NULL },
	{ 0x0483, 0x3755, 0x3755, TT_USB_STLINK_LOADER, "ST-Link V3PWR (firmware loader)", NULL,
	  "in firmware-update mode: replug it, or finish the update with STM32CubeProgrammer" },
	{ 0x0483, 0x3757, 0x3757, TT_USB_STLINK_V3, "ST-Link V3PWR", STLINK_CFG,
	  "needs an OpenOCD newer than 0.12 (0.12's stlink.cfg does not list 0483:3757)" },
	/* SEGGER assigns J-Link ids in these two blocks; OpenOCD 0.12 lists 0101-0105, 0107,
	 * 0108, 1010-1018, 1020, 1051, 1055, 1061. The vendor id is SEGGER's own. */
	{ 0x1366, 0x0101, 0x0108, TT_USB_JLINK, "SEGGER J-Link", "interface/jlink.cfg", NULL },
	{ 0x1366, 0x1010, 0x106f, TT_USB_JLINK, "SEGGER J-Link", "interface/jlink.cfg", NULL },
	{ 0x0403, 0x6010, 0x6011, TT_USB_FTDI, "FTDI", NULL, NULL },
	{ 0x0403, 0x6014, 0x6014, TT_USB_FTDI, "FTDI", NULL, NULL },
	{ 0x1d50, 0x6018, 0x6018, TT_USB_BLACKMAGIC, "Black Magic Probe", NULL,
	  "a GDB server on its first serial port (gdb: target extended-remote /dev/ttyACM0), "
	  "not driven by OpenOCD: tracetapd cannot read through it" },
	{ 0x2e8a, 0x000c, 0x000c, TT_USB_CMSIS_DAP_V2, "Raspberry Pi Debug Probe", DAP_CFG, NULL },
	{ 0x303a, 0x1001, 0x1001, TT_USB_ESP_USB_JTAG, "ESP32 USB-JTAG",
	  "interface/esp_usb_jtag.cfg",
	  "needs an OpenOCD with the esp_usb_jtag driver (openocd-esp32, or upstream after 0.12)" },
	{ 0x1a86, 0x8010, 0x8010, TT_USB_WCH_LINK_RISCV, "WCH-Link (RISC-V mode)", NULL,
	  "needs WCH's OpenOCD fork (adapter driver wlinke, -f wch-riscv.cfg); mainline OpenOCD "
	  "has no driver for this mode: switch the probe to its ARM (CMSIS-DAP) mode to use it "
	  "with interface/cmsis-dap.cfg" },
	{ 0x1a86, 0x8011, 0x8012, TT_USB_CMSIS_DAP_V1, "WCH-Link (CMSIS-DAP mode)", DAP_CFG, NULL },
};

/* FTDI adapters recognised by their product string: the exact `ftdi device_desc` of an
 * OpenOCD interface/ftdi config file. Generic strings ("Dual RS232-HS", used by many boards) are
 * deliberately absent: any guess would be wrong for most users. pid 0 = any FTDI pid. */
struct ftdi_entry {
	uint16_t pid;
	const char *product;
	const char *name;
	const char *cfg;
};

static const struct ftdi_entry ftdi_table[] = {
	{ 0x6010, "Digilent Adept USB Device", "Digilent JTAG-HS1", "interface/ftdi/digilent-hs1.cfg" },
	{ 0x6014, "Digilent Adept USB Device", "Digilent JTAG-HS2", "interface/ftdi/digilent-hs2.cfg" },
	{ 0x6014, "Digilent USB Device", "Digilent JTAG-HS3", "interface/ftdi/digilent_jtag_hs3.cfg" },
	{ 0, "Flyswatter2", "TinCanTools Flyswatter2", "interface/ftdi/flyswatter2.cfg" },
	{ 0, "Flyswatter", "TinCanTools Flyswatter", "interface/ftdi/flyswatter.cfg" },
	{ 0, "FLOSS-JTAG", "FLOSS-JTAG", "interface/ftdi/flossjtag.cfg" },
	{ 0, "KT-LINK", "KT-LINK", "interface/ftdi/kt-link.cfg" },
	{ 0, "Amontec JTAGkey-2", "Amontec JTAGkey-2", "interface/ftdi/jtagkey2.cfg" },
	{ 0, "Amontec JTAGkey-2P", "Amontec JTAGkey-2P", "interface/ftdi/jtagkey2p.cfg" },
	{ 0, "FT2232H MiniModule", "FTDI FT2232H MiniModule", "interface/ftdi/minimodule.cfg" },
	{ 0, "HIE JTAG Debugger", "HIE JTAG Debugger", "interface/ftdi/hie-jtag.cfg" },
	{ 0, "ICEbear JTAG adapter", "Section5 ICEbear", "interface/ftdi/icebear.cfg" },
	{ 0, "JTAG-lock-pick Tiny 2", "JTAG-lock-pick Tiny 2", "interface/ftdi/jtag-lock-pick_tiny_2.cfg" },
	{ 0, "Tigard V1.1", "Tigard", "interface/ftdi/tigard.cfg" },
	{ 0, "Olimex OpenOCD JTAG ARM-USB-OCD-H", "Olimex ARM-USB-OCD-H", "interface/ftdi/olimex-arm-usb-ocd-h.cfg" },
	{ 0, "Olimex OpenOCD JTAG ARM-USB-TINY-H", "Olimex ARM-USB-TINY-H", "interface/ftdi/olimex-arm-usb-tiny-h.cfg" },
};

static const char ftdi_unknown_note[] =
	"FTDI: choose the interface/ftdi/*.cfg for your adapter (its wiring is not visible over USB)";

static const struct id_entry *find_id(uint16_t vid, uint16_t pid)
{
	for (size_t i = 0; i < sizeof(id_table) / sizeof(id_table[0]); i++)
		if (id_table[i].vid == vid && pid >= id_table[i].pid_first &&
		    pid <= id_table[i].pid_last)
			return &id_table[i];
	return NULL;
}

bool tt_usb_known_id(uint16_t vid, uint16_t pid)
{
	return find_id(vid, pid) != NULL;
}

size_t tt_usb_id_table(const uint16_t (**ids)[3])
{
	enum { N = sizeof(id_table) / sizeof(id_table[0]) };
	static uint16_t flat[N][3];

	for (size_t i = 0; i < N; i++) {
		flat[i][0] = id_table[i].vid;
		flat[i][1] = id_table[i].pid_first;
		flat[i][2] = id_table[i].pid_last;
	}
	*ids = (const uint16_t(*)[3])flat;
	return N;
}

static void classify_ftdi(const struct tt_usb_ident *id, struct tt_usb_match *m)
{
	m->name = "FTDI-based JTAG adapter";
	m->openocd_cfg = NULL;
	m->note = ftdi_unknown_note;
	if (!id->product)
		return;
	for (size_t i = 0; i < sizeof(ftdi_table) / sizeof(ftdi_table[0]); i++) {
		const struct ftdi_entry *f = &ftdi_table[i];
		if ((f->pid == 0 || f->pid == id->pid) && !strcmp(f->product, id->product)) {
			m->name = f->name;
			m->openocd_cfg = f->cfg;
			m->note = NULL;
			return;
		}
	}
}

bool tt_usb_classify(const struct tt_usb_ident *id, struct tt_usb_match *m)
{
	const struct id_entry *e = find_id(id->vid, id->pid);
	bool dap_string = id->product && strstr(id->product, "CMSIS-DAP");

	*m = (struct tt_usb_match){ .kind = TT_USB_UNKNOWN, .name = "unknown" };
	if (e) {
		m->kind = e->kind;
		m->name = e->name;
		m->openocd_cfg = e->cfg;
		m->note = e->note;
		m->serial_cmd = e->cfg ? SERIAL_CMD : NULL;
		if (e->kind == TT_USB_FTDI) {
			classify_ftdi(id, m);
			m->serial_cmd = SERIAL_CMD;
		}
		/* A CMSIS-DAP probe by id: the interfaces tell v1 from v2 when they were read. */
		if (e->kind == TT_USB_CMSIS_DAP_V1 || e->kind == TT_USB_CMSIS_DAP_V2) {
			if (id->dap_v2_interface)
				m->kind = TT_USB_CMSIS_DAP_V2;
			else if (id->dap_v1_interface)
				m->kind = TT_USB_CMSIS_DAP_V1;
		}
		return true;
	}
	if (dap_string || id->dap_v2_interface || id->dap_v1_interface) {
		m->kind = id->dap_v2_interface ? TT_USB_CMSIS_DAP_V2 : TT_USB_CMSIS_DAP_V1;
		m->name = m->kind == TT_USB_CMSIS_DAP_V2 ? "CMSIS-DAP v2" : "CMSIS-DAP v1";
		m->openocd_cfg = DAP_CFG;
		m->serial_cmd = SERIAL_CMD;
		return true;
	}
	return false;
}

const char *tt_usb_kind_name(enum tt_usb_kind k)
{
	switch (k) {
	case TT_USB_STLINK_V2: return "stlink-v2";
	case TT_USB_STLINK_V21: return "stlink-v2-1";
	case TT_USB_STLINK_V3: return "stlink-v3";
	case TT_USB_STLINK_LOADER: return "stlink-loader";
	case TT_USB_CMSIS_DAP_V1: return "cmsis-dap-v1";
	case TT_USB_CMSIS_DAP_V2: return "cmsis-dap-v2";
	case TT_USB_JLINK: return "jlink";
	case TT_USB_FTDI: return "ftdi";
	case TT_USB_BLACKMAGIC: return "blackmagic";
	case TT_USB_ESP_USB_JTAG: return "esp-usb-jtag";
	case TT_USB_WCH_LINK_RISCV: return "wch-link-riscv";
	case TT_USB_UNKNOWN: break;
	}
	return "unknown";
}
