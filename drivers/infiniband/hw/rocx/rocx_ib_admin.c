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
 * @err: rocx_ib_exec() result of DESTROY_CQ or DESTROY_QP
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
 * rocx_ib_admin() - run an object command (contexts, PDs, contract 1.1)
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
 * rocx_ib_exec() - run a contract 1.1 command on the admin queue
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
