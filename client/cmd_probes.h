/* client/cmd_probes.h: `tracetap probes`: the debug probes plugged into this machine. */
#ifndef TT_CMD_PROBES_H
#define TT_CMD_PROBES_H

/* argv[0] is "probes". Returns the exit status: 0 (listed, possibly none), 1 (USB not
 * available or built without libusb), 2 (usage). */
int tt_cmd_probes(int argc, char **argv);

#endif
