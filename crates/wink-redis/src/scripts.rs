//! The Lua scripts that make each multi-key step atomic on the server (a worker killed between
//! two commands must never leave a request half acked or a result without its lease check).

use std::sync::LazyLock;

use redis::Script;

/// KEYS: requests, deliveries. ARGV: group, entry id, request id. 1 when acked, 0 when the
/// entry was not pending (acked already, or dead-lettered).
pub static ACK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[3])
return 1",
    )
});

/// KEYS: requests, delayed. ARGV: group, entry id, request id, visible-at (ms since the epoch).
/// Moves a pending entry to the delayed set; 0 when it was not pending.
pub static NACK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local entry = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])
if #entry == 0 then return 0 end
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
local fields = entry[1][2]
local body = ''
for i = 1, #fields, 2 do
  if fields[i] == 'body' then body = fields[i + 1] end
end
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3] .. '\n' .. body)
return 1",
    )
});

/// KEYS: delayed, requests. ARGV: now (ms since the epoch). Re-adds nacked requests whose delay
/// has passed; returns how many.
pub static PROMOTE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 100)
for _, member in ipairs(due) do
  local nl = string.find(member, '\n', 1, true)
  if nl then
    redis.call('XADD', KEYS[2], '*', 'id', string.sub(member, 1, nl - 1), 'body', string.sub(member, nl + 1))
  end
  redis.call('ZREM', KEYS[1], member)
end
return #due",
    )
});

/// KEYS: requests, dead, deliveries, result. ARGV: group, entry id, request id, body,
/// deliveries, result JSON, result TTL (s). Moves a request to the dead-letter stream and
/// records its `dead_lettered` result (unless it has one).
pub static DEAD_LETTER: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('XADD', KEYS[2], '*', 'id', ARGV[3], 'body', ARGV[4], 'deliveries', ARGV[5])
redis.call('HDEL', KEYS[3], ARGV[3])
redis.call('SET', KEYS[4], ARGV[6], 'EX', ARGV[7], 'NX')
return 1",
    )
});

/// KEYS: result, lease. ARGV: consumer, lease TTL (ms). `done` when the request has a result,
/// `ok` when this consumer holds the lease now, `held` when another one does.
pub static CLAIM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 'done' end
local holder = redis.call('GET', KEYS[2])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  return 'ok'
end
return 'held'",
    )
});

/// KEYS: lease, requests. ARGV: consumer, lease TTL (ms), group, entry id. Extends the lease and
/// resets the entry's idle time (so `XAUTOCLAIM` leaves it alone); 0 when the lease was lost.
pub static HEARTBEAT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('XCLAIM', KEYS[2], ARGV[3], ARGV[1], 0, ARGV[4], 'JUSTID')
return 1",
    )
});

/// KEYS: lease, run. ARGV: consumer, lease TTL (ms), step, base (0/1), events, checkpoint.
/// Appends a run entry when this consumer holds the lease (and extends it); 0 when the lease
/// was lost. The entry on top already being this consumer's for this step (a retry after a
/// lost reply) writes nothing; a base entry trims everything before it.
pub static CHECKPOINT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
if top then
  local fields, step, worker = top[2], nil, nil
  for i = 1, #fields, 2 do
    if fields[i] == 'step' then step = fields[i + 1] end
    if fields[i] == 'worker' then worker = fields[i + 1] end
  end
  if step == ARGV[3] and worker == ARGV[1] then return 1 end
end
local id = redis.call('XADD', KEYS[2], '*', 'step', ARGV[3], 'base', ARGV[4], 'worker', ARGV[1], 'events', ARGV[5], 'checkpoint', ARGV[6])
if ARGV[4] == '1' then redis.call('XTRIM', KEYS[2], 'MINID', id) end
return 1",
    )
});

/// KEYS: lease, result, done, run. ARGV: consumer, result JSON, TTL (s). `ok` when published,
/// `exists` when the request already had a result, `lost` when another worker holds the lease.
pub static PUBLISH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[2]) == 1 then return 'exists' end
local holder = redis.call('GET', KEYS[1])
if holder ~= false and holder ~= ARGV[1] then return 'lost' end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
redis.call('INCR', KEYS[3])
redis.call('DEL', KEYS[1])
redis.call('EXPIRE', KEYS[4], ARGV[3])
return 'ok'",
    )
});

/// KEYS: lease. ARGV: consumer. Gives a lease up (a worker stopping); 1 when it held it.
pub static RELEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1",
    )
});
