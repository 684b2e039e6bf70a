"""What runs the course underneath the lessons; no notebook asks a student to open it.

The lessons live in ``course_lib/`` (a glass box, opened in class); this
package is the machinery they stand on (a notebook may call it - notebook 00
starts and stops the local server - but never asks a student to read it): the engines and the local model
server, the HTTP layer under every client, the set-up and the settings, the
class model server and its door, the class view and a student's progress.  It never imports
``course_lib`` (tests/test_package_map.py walks the imports): a lesson hands
in what it needs - the tools check, the reply reader - as a function.  Every
module here is standard library only unless it says otherwise, and
``course.py`` imports only from here, before the virtual environment exists.

The list is in import order: a module imports only modules above it, so
there is no circle.

texts             every sentence's table and t(); the machinery's own sentences
platforms         which engine serves the model on this OS / CPU (stdlib only)
setup_check       the set-up's pre-checks (standard library only)
class_code        the class code: join a class in one step (stdlib only)
settings          the project root, the cache folder and the .env file; ProviderError
progress          a student's exercise results: kept here, sent in class
server_process    start / watch / stop the model server on every OS (guard)
windows_engine    llama.cpp's Windows release from PyPI, unpacked
xllamacpp_server  the xllamacpp engine with llama-server's flags (macOS, Linux arm)
local_server      the embedded model server (any engine) and its model file
keys              the class key and the teacher key: made once, read, kept
name_skeleton     a display name's TR39 skeleton: lookalike names are one name
request_rules     what some endpoints need changed in a request
control_tokens    chat-template markers in content broken: no forged turn
request_log       one JSON line per request (the bench, the tests)
request_replay    the tests' second pass: chat answers recorded, replayed
http_client       the HTTP client under every client: rules, proxies, class
provider_checks   the provider's .env lines checked; what an error means
mcp_connection    an MCP server's process and session in a thread; Windows
span_values       attribute values and times OpenTelemetry can store
trace_files       the trace file: spans appended under a lock, old runs cut
web_requests      the web service's request layer: bodies, JSON, limits, refusals
teacher_guard     who may use the teacher's routes: address, Host/Origin, key
progress_store    the class's results and names in SQLite
exam_store        the capstone's hidden exam and its submissions, in SQLite
progress_page     what the teacher sees: the page, the CSV, the model's state
upstreams         the model servers behind the class door, least busy first
fair_share        fair turns at the class model: one at a time, quietest first
reply_memory      the class door's memory of temperature-0 replies
door_rules        what the class door lets pass: fields, bounds, cleaned replies
door_witness      what the door saw each student send: texts, tool names (exam)
class_door        the class door (8767): own token, fair turns, to the model servers
teacher_actions   the teacher's actions on names: release, rename, merge
exam_desk         the capstone exam: questions out, answers scored, leaderboard
web_server        the web service running: uvicorn, guarded against slow clients
progress_service  the teacher's web service: results, joining, the page, the door
classroom         course.py serve: the class model server (8766), supervised
"""
