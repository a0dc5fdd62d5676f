/* Services: the ServiceRecords hosts register with the SA (SubnAdmSet of a ServiceRecord, IBA
 * 15.2.5.14) and remove (SubnAdmDelete), each for its lease: ServiceLease seconds from the last
 * Set, or forever (CS_SA_SERVICE_LEASE_INFINITE).
 *
 * One struct cs_services lives as long as the SM, like the alias GUID store (alias_guids.h): it is
 * not part of the SA db, which is rebuilt every sweep. The SA changes it when it answers a Set or
 * a Delete and reads it for Get and GetTable (cs_sa_answer with cs_sa_options.services;
 * src/sa/sa_service.c applies OpenSM 3.3.23's rules).
 *
 * A record is identified by its ServiceID, ServiceGID and ServiceP_Key (OpenSM's RID): a Set with
 * all three equal to a stored record's replaces it in place (and restarts its lease), otherwise it
 * is added in front: records are kept newest first, the order OpenSM 3.3.23 answers them in (it
 * inserts at the head of its list). Expired records are dropped when the store is next used (every
 * call takes the time, in ms of cs_clock_ms or any other monotonic clock), so none is ever answered
 * after its lease. Nothing goes to disk: OpenSM keeps them in memory too, and services register
 * again when the SM asks (client reregistration).
 */
#ifndef CLOUDSM_SERVICES_H
#define CLOUDSM_SERVICES_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/sa.h"

struct cs_services;

struct cs_services *cs_services_create(struct cs_error *err);
void cs_services_destroy(struct cs_services *s);

/* Drop the records whose lease ended at or before now_ms. */
void cs_services_expire(struct cs_services *s, double now_ms);

/* Register r (after expiring): replace the record with its ID, GID and P_Key, or add it. 0, or -1
 * when out of memory. */
int cs_services_set(struct cs_services *s, const struct cs_sa_service_record *r, double now_ms,
                    struct cs_error *err);

/* Remove the record with r's ID, GID and P_Key (after expiring): 1 with the removed record in
 * *removed (may be NULL), 0 when there is none. */
int cs_services_delete(struct cs_services *s, const struct cs_sa_service_record *r, double now_ms,
                       struct cs_sa_service_record *removed);

/* The records, newest registration first: count and the i-th (valid until the next call that
 * changes or expires the store). */
uint32_t cs_services_count(const struct cs_services *s);
const struct cs_sa_service_record *cs_services_at(const struct cs_services *s, uint32_t i);

#endif
