-- Fragment, included where a script issues or takes back a fencing number (term or token).
-- A reservation key holds '<ceiling>:<run id>'; a second key beside it, the replication id of the
-- data it was written into. Numbers up to the ceiling may be issued: the operator recorded that
-- ceiling durably (in the resource's status, in etcd) before it wrote it here, so after any loss of
-- Redis data the next number can start above it.
-- The reservation counts only on the Redis process that wrote it (run id), and only while that
-- process's data descends from the data it wrote it into (replication id). A restarted Redis or a
-- promoted replica has another run id; a former master promoted again before it synced from the
-- master that replaced it keeps its run id and its old data, but every promotion starts a new
-- replication id. Either way the latest increments may be missing, so nothing is issued there until
-- the operator reserves again. The replication id has a key of its own so that scripts from before
-- it, in applications not yet upgraded, still read the reservation; a reservation without one (made
-- by an operator from before it) counts by its run id alone, as it did then.
-- Returns the ceiling in force (-1 when none), this Redis's run id and its replication id.
local function reservation(key, replidKey)
  local runid = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
  -- Redis before 4.0 has no replication id.
  local replid = string.match(redis.call('INFO', 'replication'), 'master_replid:(%w+)') or 'none'
  local held = redis.call('GET', key)
  if held then
    local ceiling, id = string.match(held, '^(%d+):(%w+)$')
    local madeIn = redis.call('GET', replidKey)
    if id == runid and (not madeIn or madeIn == replid) then
      return tonumber(ceiling), runid, replid
    end
  end
  return -1, runid, replid
end
