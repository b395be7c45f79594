/* daemon/server_target.c: tt_server_add_target, kept apart from server.c so that programs
 * without daemon/target.c (tests, benches) can link the server. */
#include "server.h"

#include <stddef.h>

#include "target.h"

static const struct tt_target_status *status_of(void *arg)
{
	return tt_target_status(arg);
}

struct tt_hub *tt_server_add_target(struct tt_server *s, struct tt_target *t)
{
	const struct tt_target_config *tc = tt_target_config(t);
	struct tt_hub_config hc = { .target = tt_target_name(t), .format = tc->format,
				    .probe = tc->probe, .status = status_of, .status_arg = t };
	struct tt_hub *h;

	return tt_server_add_hub(s, &hc, &h) < 0 ? NULL : h;
}
