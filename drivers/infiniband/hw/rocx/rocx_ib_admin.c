// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib admin layer: the bottom of the driver, which every verb file
 * calls and which calls none of them.  Commands go to the device's admin
 * queue through rocx_core (rocx_admin_exec()); their results become the
 * errnos verbs return, and what a destroy command's result leaves behind
 * is decided here once.  Providers' requests and responses cross here
 * too, with the rules that let older and newer providers work.
 */
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/**
 * rocx_ib_verbs_errno() - errno a verb returns for a failed admin command
 * @err: rocx_admin_exec() result
 *
 * A full device table (NO_RESOURCE, -ENOSPC) is what verbs callers know as
 * -ENOMEM; every other errno already means the same to them.
 */
int rocx_ib_verbs_errno(int err)
{
	return err == -ENOSPC ? -ENOMEM : err;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_verbs_errno);

/**
 * rocx_ib_destroy_outcome() - what a failed destroy command leaves behind
 * @err: rocx_ib_exec() result of DESTROY_CQ, DESTROY_QP, DESTROY_SRQ or
 *	DEALLOC_XRCD
 *
 * Return: ROCX_IB_DESTROYED when the device holds no such object any more
 * (destroyed, or rocx_core going away, or the device does not know it);
 * ROCX_IB_DESTROY_REFUSED when it refused and still holds the object and
 * its number; ROCX_IB_DESTROY_UNKNOWN when it did not answer: the object
 * may be gone and its number handed out again, or still in use.
 */
enum rocx_ib_destroy_outcome rocx_ib_destroy_outcome(int err)
{
	switch (err) {
	case 0:
	case -ENODEV:
	case -ENOENT:
		return ROCX_IB_DESTROYED;
	case -ETIMEDOUT:
		return ROCX_IB_DESTROY_UNKNOWN;
	default:
		return ROCX_IB_DESTROY_REFUSED;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_destroy_outcome);

/* ---- Helpers for every verb ---- */

/**
 * rocx_ib_obj_destroy() - destroy a CQ, QP or SRQ on the device
 * @dev: device
 * @kind: the object's kind
 * @xa: the table that finds it by number for its events
 * @n: its number
 * @obj: the object
 * @err: set to the DESTROY command's result
 *
 * The object leaves @xa before the device frees its number, which the
 * device may hand to a concurrent create at once.  The event paths hold
 * the table's lock across their calls: none runs for the object after
 * the erase.
 *
 * A refused destroy leaves the object and its number with the device, so
 * ib_core keeps the object too (and destroys it again at the latest with
 * its context): it goes back into @xa for its events.  After an
 * unanswered one the number may be another object's already, so no
 * destroy may be retried, and the device may still use the object's
 * memory: ib_core forgets the object and its memory stays pinned.
 *
 * Return: the outcome; the caller releases the object's memory only for
 * ROCX_IB_DESTROYED, and fails the verb with @err only for
 * ROCX_IB_DESTROY_REFUSED.
 */
enum rocx_ib_destroy_outcome
rocx_ib_obj_destroy(struct rocx_ib_dev *dev, const struct rocx_ib_obj_kind *kind,
		    struct xarray *xa, u32 n, void *obj, int *err)
{
	enum rocx_ib_destroy_outcome outcome;

	xa_erase_irq(xa, n);
	*err = kind->destroy(dev, n);
	outcome = rocx_ib_destroy_outcome(*err);
	switch (outcome) {
	case ROCX_IB_DESTROYED:
		break;
	case ROCX_IB_DESTROY_REFUSED:
		ibdev_err(&dev->ibdev, "DESTROY_%s %u failed: %d\n", kind->name,
			  n, *err);
		if (xa_insert_irq(xa, n, obj, GFP_KERNEL))
			ibdev_err(&dev->ibdev, "%s %u gets no more events\n",
				  kind->name, n);
		break;
	case ROCX_IB_DESTROY_UNKNOWN:
		ibdev_err(&dev->ibdev,
			  "DESTROY_%s %u unanswered (%d); leaking its %s\n",
			  kind->name, n, *err, kind->mem);
		break;
	}
	return outcome;
}

/**
 * rocx_ib_obj_publish() - make a created CQ, QP or SRQ findable, and answer
 * @dev: device
 * @kind: the object's kind
 * @xa: the table that finds it by number for its events
 * @n: the number the device gave it
 * @obj: the object
 * @udata: the provider's command, NULL for a kernel object (no answer)
 * @resp: the response to the provider
 * @len: its size in this kernel
 * @gone: on failure, set to whether the device has let go of the object
 *
 * The object goes into @xa and its response to the provider.  Should
 * either fail, the object leaves @xa and the device again.
 *
 * Return: 0, or the errno the create fails with.  The caller then
 * releases the object's memory only if @gone: otherwise the destroy went
 * unanswered or was refused, and the device may still use that memory.
 */
int rocx_ib_obj_publish(struct rocx_ib_dev *dev,
			const struct rocx_ib_obj_kind *kind, struct xarray *xa,
			u32 n, void *obj, struct ib_udata *udata, void *resp,
			size_t len, bool *gone)
{
	int err;

	err = xa_insert_irq(xa, n, obj, GFP_KERNEL);
	if (err) {
		ibdev_err(&dev->ibdev, "device gave %s %u twice\n", kind->num,
			  n);
		err = err == -EBUSY ? -EIO : err;
		goto err_destroy;
	}
	if (!udata)
		return 0;
	err = rocx_ib_udata_out(udata, resp, len);
	if (err)
		goto err_erase;
	return 0;

err_erase:
	xa_erase_irq(xa, n);
err_destroy:
	*gone = rocx_ib_destroy_outcome(kind->destroy(dev, n)) ==
		ROCX_IB_DESTROYED;
	return err;
}

/**
 * rocx_ib_udata_in() - copy the provider's request
 * @udata: the driver part of the command
 * @req: where the request goes; zeroed first
 * @len: its size in this kernel; 0 for a verb that defines no request
 * @min_len: the size of its first layout, which every provider sends
 *
 * Requests only grow (rocx-abi.h).  An older provider's shorter request
 * is taken as long as it holds the first layout, and the fields it did not
 * send read as zero; a newer provider's longer one is taken only if the
 * part this kernel does not know is zero.
 *
 * Return: 0, -EINVAL (shorter than the first layout), -EOPNOTSUPP (an
 * unknown part not zero) or -EFAULT.
 */
int rocx_ib_udata_in(struct ib_udata *udata, void *req, size_t len,
		     size_t min_len)
{
	if (len)
		memset(req, 0, len);
	if (udata->inlen < min_len)
		return -EINVAL;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EOPNOTSUPP;
	return len ? ib_copy_from_udata(req, udata, min(len, udata->inlen)) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_udata_in);

/**
 * rocx_ib_udata_out() - copy a response, as much of it as there is room for
 * @udata: the driver part of the command
 * @resp: the response
 * @len: its size in this kernel
 *
 * An older provider has room for less and reads only what it knows; a
 * newer one gets this kernel's response, and the rest of its buffer,
 * which it zeroed, tells it that the fields there were not filled.
 *
 * Return: 0 or -EFAULT.
 */
int rocx_ib_udata_out(struct ib_udata *udata, void *resp, size_t len)
{
	return ib_copy_to_udata(udata, resp, min(len, udata->outlen));
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_udata_out);

/**
 * rocx_ib_admin() - run an object command (user contexts, PDs)
 * @dev: device
 * @cmd: command, opcode set
 * @cqe: if not NULL, receives the completion
 *
 * Return: as rocx_admin_exec().
 */
int rocx_ib_admin(struct rocx_ib_dev *dev, union rocx_aq_cmd *cmd,
		  struct rocx_aq_cqe *cqe)
{
	/* KUnit tests put a fake device here. */
	KUNIT_STATIC_STUB_REDIRECT(rocx_ib_admin, dev, cmd, cqe);
	return rocx_admin_exec(dev->core, cmd, cqe);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_admin);

/**
 * rocx_ib_db_page() - bus address of a user context's doorbell page
 * @dev: device
 * @uctx: the context, whose id is its doorbell page
 * @phys: set to the page's bus address
 *
 * Return: as rocx_db_page_phys().
 */
int rocx_ib_db_page(struct rocx_ib_dev *dev, u32 uctx, phys_addr_t *phys)
{
	/* KUnit tests put a fake BAR here. */
	KUNIT_STATIC_STUB_REDIRECT(rocx_ib_db_page, dev, uctx, phys);
	return rocx_db_page_phys(dev->core, uctx, phys);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_db_page);

/**
 * rocx_ib_exec() - run an RDMA transport command on the admin queue
 * @dev: device
 * @cmd: command, opcode set
 * @cqe: if not NULL, receives the completion
 *
 * Return: as rocx_admin_exec(); a 1.0 device answers -EOPNOTSUPP.
 */
int rocx_ib_exec(struct rocx_ib_dev *dev, union rocx_aq_verbs_cmd *cmd,
		 struct rocx_aq_cqe *cqe)
{
	/* Every admin command shares the header and the size. */
	static_assert(sizeof(*cmd) == sizeof(union rocx_aq_cmd));
	return rocx_ib_admin(dev, (union rocx_aq_cmd *)cmd, cqe);
}
