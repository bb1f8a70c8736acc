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

/// KEYS: requests, request. ARGV: request id, body. Adds a request and records which entry
/// carries its id; returns the entry id.
pub static SUBMIT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local entry = redis.call('XADD', KEYS[1], '*', 'id', ARGV[1], 'body', ARGV[2])
redis.call('SET', KEYS[2], entry)
return entry",
    )
});

/// KEYS: requests. ARGV: group, consumer, visibility timeout (ms), count, largest value (bytes),
/// most fields. The entries to deliver: those idle past the visibility timeout, then new ones,
/// each as `{entry id, fields}` where a value (or field name) over the largest size is replaced
/// by its length, and the fields by their count when there are more than the most. `nogroup`
/// when the group (or the stream) does not exist. Bodies over the limit never leave the server.
pub static RECEIVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local count = tonumber(ARGV[4])
local largest = tonumber(ARGV[5])
local most = tonumber(ARGV[6])
local claimed = redis.pcall('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], '0-0', 'COUNT', count)
if type(claimed) == 'table' and claimed.err then
  if string.find(claimed.err, 'NOGROUP', 1, true) then return 'nogroup' end
  return redis.error_reply(claimed.err)
end
local entries = {}
for _, entry in ipairs(claimed[2]) do
  if type(entry) == 'table' and type(entry[2]) == 'table' then entries[#entries + 1] = entry end
end
if #entries < count then
  local read = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', count - #entries, 'STREAMS', KEYS[1], '>')
  if type(read) == 'table' then
    for _, entry in ipairs(read[1][2]) do entries[#entries + 1] = entry end
  end
end
local out = {}
for _, entry in ipairs(entries) do
  local fields = entry[2]
  local shown
  if #fields > 2 * most then
    shown = #fields / 2
  else
    shown = {}
    for i = 1, #fields do
      local length = string.len(fields[i])
      if length > largest then shown[i] = length else shown[i] = fields[i] end
    end
  end
  out[#out + 1] = {entry[1], shown}
end
return out",
    )
});

/// KEYS: deliveries, request, requests, result. ARGV: request id, entry id. Counts a delivery
/// of the entry carrying a request id and returns the count, or -1 when another entry carries
/// that id (still in the stream, or with a result already): two requests never merge.
pub static ADMIT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= ARGV[2] then
  if #redis.call('XRANGE', KEYS[3], owner, owner) > 0 or redis.call('EXISTS', KEYS[4]) == 1 then
    return -1
  end
end
redis.call('SET', KEYS[2], ARGV[2])
return redis.call('HINCRBY', KEYS[1], ARGV[1], 1)",
    )
});

/// KEYS: requests, dead, deliveries, result, request. ARGV: group, entry id, request id,
/// deliveries, result JSON, result TTL (s), reason, own (1 when the entry carries the request:
/// record its `dead_lettered` result unless it has one, and forget its deliveries). Moves the
/// entry to the dead-letter stream with its fields as they were, byte for byte, then
/// `deliveries` and `reason`.
pub static DEAD_LETTER: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local entry = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])[1]
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
local args = {KEYS[2], '*'}
if entry then
  local fields = entry[2]
  for i = 1, math.min(#fields, 2000) do args[#args + 1] = fields[i] end
end
args[#args + 1] = 'deliveries'
args[#args + 1] = ARGV[4]
args[#args + 1] = 'reason'
args[#args + 1] = ARGV[7]
redis.call('XADD', unpack(args))
if ARGV[8] == '1' then
  redis.call('HDEL', KEYS[3], ARGV[3])
  redis.call('SET', KEYS[4], ARGV[5], 'EX', ARGV[6], 'NX')
  redis.call('EXPIRE', KEYS[5], ARGV[6])
end
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

/// KEYS: lease, result, done, run, request. ARGV: consumer, result JSON, TTL (s). `ok` when
/// published, `exists` when the request already had a result, `lost` when another worker holds
/// the lease. The run's stream and the record of the entry carrying the id expire with the
/// result.
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
redis.call('EXPIRE', KEYS[5], ARGV[3])
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
