/* analysis/analysis_stacks.c: the threads of a whole image, with the high-water marks of the
 * painted stacks the image holds (tt_analysis_image_threads). */
#include <stdlib.h>

#include "analysis_int.h"
#include "reader.h"

struct img_threads {
	struct tt_analysis *a;
	struct tt_stackscan *scan; /* NULL: the format paints no stacks (or no memory) */
	uint64_t base;
	size_t len;
};

static void img_thread(void *arg, const struct tt_an_thread *t)
{
	struct img_threads *it = arg;

	tt_analysis_thread(it->a, t);
	if (it->scan)
		tt_stackscan_image_thread(it->scan, it->base, it->len, t->id, t->stack_start,
					  t->stack_size);
}

int tt_analysis_image_threads(struct tt_analysis *a, const uint8_t *img, size_t len,
			      uint64_t base, const struct tt_reader_config *cfg)
{
	const struct tt_analysis_ops *ops = a->ops;
	struct img_threads it = { a, NULL, base, len };
	struct tt_stack_painted p;
	uint32_t fill;
	int rc;

	if (!ops || !ops->image_threads)
		return 0;
	if (ops->stack_fill && ops->stack_fill(cfg ? cfg->format_cfg : NULL, &fill) == 0 &&
	    (it.scan = malloc(sizeof(*it.scan))) != NULL)
		tt_stackscan_init(it.scan, fill);
	rc = ops->image_threads(img, len, base, cfg, img_thread, &it);
	if (rc == 0 && it.scan) {
		tt_stackscan_image(it.scan, img, len, base);
		for (unsigned i = 0; tt_stackscan_at(it.scan, i, &p) == 0; i++)
			tt_analysis_stack_painted(a, &p);
	}
	free(it.scan);
	return rc;
}
