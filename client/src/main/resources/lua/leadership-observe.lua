-- Read an election as a candidate pod follows it: who holds the lease, for how long, and whether a
-- predecessor may still believe it leads.
-- KEYS[1] holder record ('clusterId|namespace|pod|uid|term', PX expiry)
-- KEYS[2] handover (the record taken over, kept for the old lease's remaining time)
-- Returns {current record or '', pttl, handover or ''}.
local current = redis.call('GET', KEYS[1])
return {current or '', redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[2]) or ''}
