-- wrk script: POST the JSON body in $BODY; count 200, 503 and other statuses per thread.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("BODY") or "{}"
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
function init(args)
  ok, busy, other = 0, 0, 0
end
function response(status, headers, body)
  if status == 200 then ok = ok + 1 elseif status == 503 then busy = busy + 1 else other = other + 1 end
end
function done(summary, latency, requests)
  local o, b, x = 0, 0, 0
  for _, t in ipairs(threads) do
    o = o + t:get("ok"); b = b + t:get("busy"); x = x + t:get("other")
  end
  io.write(string.format("status 200: %d, 503: %d, other: %d\n", o, b, x))
end
