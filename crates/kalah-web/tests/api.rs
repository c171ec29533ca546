//! API tests: every endpoint, good and bad input, through the router (tower `oneshot`) and once
//! through a real listener on 127.0.0.1.

use std::time::Duration;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use kalah_web::{router, Config};
use serde_json::{json, Value};
use tower::ServiceExt;

fn config() -> Config {
    Config {
        engine_slots: 2,
        default_time: Duration::from_millis(200),
        max_time: Duration::from_millis(500),
        max_nodes: 1_000_000,
        max_body_bytes: 4096,
        read_timeout: Duration::from_secs(20),
        egdb_dir: None,
        egdb_advice: None,
        egdb_retry: Duration::from_secs(10),
    }
}

fn app() -> Router {
    router(config())
}

struct Answer {
    status: StatusCode,
    body: Value,
    headers: axum::http::HeaderMap,
    text: String,
}

async fn send(app: &Router, method: &str, path: &str, body: impl Into<String>) -> Answer {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.into()))
        .expect("request");
    let resp = app.clone().oneshot(req).await.expect("infallible");
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = resp.into_body().collect().await.expect("body").to_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Answer {
        status,
        body,
        headers,
        text,
    }
}

async fn post(app: &Router, path: &str, body: Value) -> Answer {
    send(app, "POST", path, body.to_string()).await
}

/// Asserts a JSON error with `status` whose message contains every one of `words`.
fn assert_error(a: &Answer, status: StatusCode, words: &[&str]) {
    assert_eq!(a.status, status, "answer: {}", a.text);
    let msg = a.body["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message in {}", a.text));
    for w in words {
        assert!(msg.contains(w), "error '{msg}' should mention '{w}'");
    }
}

/// A GET of `path` with the request headers `headers`: status, headers and body bytes.
async fn get_with(
    app: &Router,
    path: &str,
    headers: &[(header::HeaderName, &str)],
) -> (StatusCode, header::HeaderMap, Vec<u8>) {
    let mut req = Request::builder().method("GET").uri(path);
    for (name, value) in headers {
        req = req.header(name, *value);
    }
    let resp = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .expect("infallible");
    let (status, headers) = (resp.status(), resp.headers().clone());
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, headers, bytes.to_vec())
}

/// The page and its assets carry an entity tag: a reload that sends it back gets `304` and no
/// body; and they come gzip-compressed to a browser that accepts it (tester 108: every reload
/// fetched the whole page again, uncompressed, 4.9 s over a slow connection).
async fn page_is_revalidated_and_compressed(app: &Router) {
    for path in ["/", "/assets/app.js", "/assets/style.css"] {
        let (status, headers, plain) = get_with(app, path, &[]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        let tag = headers[header::ETAG].to_str().unwrap().to_string();
        assert!(tag.starts_with('"') && tag.ends_with('"'), "{path}: {tag}");
        assert_eq!(headers[header::CACHE_CONTROL], "no-cache", "{path}");
        for sent in [tag.clone(), format!("\"other\", W/{tag}"), "*".to_string()] {
            let (status, headers, body) =
                get_with(app, path, &[(header::IF_NONE_MATCH, sent.as_str())]).await;
            assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}: {sent}");
            assert_eq!(headers[header::ETAG].to_str().unwrap(), tag, "{path}");
            assert!(body.is_empty(), "{path}");
        }
        let (status, _, body) = get_with(app, path, &[(header::IF_NONE_MATCH, "\"stale\"")]).await;
        assert_eq!(
            (status, body.len()),
            (StatusCode::OK, plain.len()),
            "{path}"
        );
        let (status, headers, packed) =
            get_with(app, path, &[(header::ACCEPT_ENCODING, "gzip")]).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers[header::CONTENT_ENCODING], "gzip", "{path}");
        assert!(
            packed.len() * 2 < plain.len(),
            "{path}: {} bytes",
            packed.len()
        );
        let mut unpacked = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&packed[..]),
            &mut unpacked,
        )
        .unwrap();
        assert_eq!(unpacked, plain, "{path}");
    }
    // Each asset its own tag.
    let tag = |h: header::HeaderMap| h[header::ETAG].to_str().unwrap().to_string();
    assert_ne!(
        tag(get_with(app, "/assets/app.js", &[]).await.1),
        tag(get_with(app, "/assets/api.js", &[]).await.1)
    );
}

#[tokio::test]
async fn page_and_assets_are_served() {
    let app = app();
    let a = send(&app, "GET", "/", "").await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(a.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert!(a
        .text
        .contains(r#"<script type="module" src="/assets/app.js">"#));
    // The same page under its file name (tester 78: a 404).
    let b = send(&app, "GET", "/index.html", "").await;
    assert_eq!(b.status, StatusCode::OK);
    assert_eq!(b.text, a.text);
    for (file, ct) in [
        ("app.js", "text/javascript"),
        ("api.js", "text/javascript"),
        ("board.js", "text/javascript"),
        ("graph.js", "text/javascript"),
        ("style.css", "text/css"),
        ("favicon.svg", "image/svg+xml"),
    ] {
        let a = send(&app, "GET", &format!("/assets/{file}"), "").await;
        assert_eq!(a.status, StatusCode::OK, "{file}");
        assert!(
            a.headers[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with(ct),
            "{file}"
        );
        assert!(a.text.len() > 100, "{file} is empty");
    }
    assert_error(
        &send(&app, "GET", "/assets/nope.js", "").await,
        StatusCode::NOT_FOUND,
        &["nope.js"],
    );
    page_is_revalidated_and_compressed(&app).await;
    assert_error(
        &send(&app, "GET", "/nowhere", "").await,
        StatusCode::NOT_FOUND,
        &["/nowhere", "/api/"],
    );
    assert_error(
        &send(&app, "GET", "/api/play", "").await,
        StatusCode::METHOD_NOT_ALLOWED,
        &["POST"],
    );
    assert_error(
        &send(&app, "POST", "/api/info", "").await,
        StatusCode::METHOD_NOT_ALLOWED,
        &["GET"],
    );
}

#[tokio::test]
async fn info_lists_levels_and_limits() {
    let a = send(&app(), "GET", "/api/info", "").await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(
        a.body["levels"],
        json!(["beginner", "easy", "medium", "hard", "expert", "perfect"])
    );
    assert_eq!(a.body["engine_slots"], 2);
    assert_eq!(a.body["max_time_ms"], 500);
    assert_eq!(a.body["max_nodes"], 1_000_000);
    assert_eq!(a.body["max_body_bytes"], 4096);
}

#[tokio::test]
async fn legal_moves_of_starts_positions_and_games() {
    let app = app();
    // Empty body: Kalah(6,4), standard rules.
    let a = send(&app, "POST", "/api/legal", "").await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["position"], "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    assert_eq!(a.body["legal"], json!([1, 2, 3, 4, 5, 6]));
    assert_eq!(a.body["to_move"], "S");
    assert_eq!(a.body["over"], false);
    assert_eq!(a.body["score"], Value::Null);
    // A body that starts with a byte-order mark reads as without it (tester 23: a 400); one
    // mark only, and only at the start.
    let a = send(
        &app,
        "POST",
        "/api/legal",
        "\u{feff}{\"houses\": 3, \"seeds\": 1}",
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["position"], "1,1,1,0,1,1,1,0 S");
    let a = send(&app, "POST", "/api/legal", "\u{feff}").await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["position"], "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    for body in ["\u{feff}\u{feff}{}", " \u{feff}{}"] {
        assert_error(
            &send(&app, "POST", "/api/legal", body).await,
            StatusCode::BAD_REQUEST,
            &["the request body is not valid JSON"],
        );
    }
    // The column of a JSON error counts characters, not bytes ('é' is two bytes).
    assert_error(
        &send(&app, "POST", "/api/legal", "{\"position\": \"éé\", x}").await,
        StatusCode::BAD_REQUEST,
        &["not valid JSON: key must be a string at line 1 column 20"],
    );
    // Board size, seeds and moves (as an array of numbers and turns, or one string).
    let a = post(
        &app,
        "/api/legal",
        json!({"houses": 4, "seeds": 3, "moves": [1, "2"]}),
    )
    .await;
    assert_eq!(a.body["position"], "0,4,4,4,0,3,0,4,4,1 N", "{}", a.text);
    assert_eq!(a.body["legal"], json!([1, 3, 4]));
    let b = post(
        &app,
        "/api/legal",
        json!({"houses": 4, "seeds": 3, "moves": "1 2"}),
    )
    .await;
    assert_eq!(a.body, b.body);
    let a = post(&app, "/api/legal", json!({"moves": ["3-6"]})).await;
    assert_eq!(a.body["position"], "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N");
    assert_eq!(a.body["legal"], json!([1, 2, 3, 4, 5, 6]));
    // A custom layout, mirrored.
    let a = post(
        &app,
        "/api/legal",
        json!({"layout": [4, 4, 5, 4, 3, 4], "mirrored": true}),
    )
    .await;
    assert_eq!(a.body["position"], "4,4,5,4,3,4,0,4,3,4,5,4,4,0 S");
    let a = post(
        &app,
        "/api/legal",
        json!({"layout": "1,2", "rules": "pie=on"}),
    )
    .await;
    assert_eq!(a.body["position"], "1,2,0,1,2,0 S opening");
    assert_eq!(a.body["phase"], "opening");
    // A position; North to move; only the houses with seeds.
    let a = post(&app, "/api/legal", json!({"position": "1,0,2,3,0,0,4,5 N"})).await;
    assert_eq!(a.body["legal"], json!([3]), "{}", a.text);
    assert_eq!(a.body["to_move"], "N");
    // A position whose game is over by the rules is settled and scored.
    let a = post(&app, "/api/legal", json!({"position": "0,0,3,1,2,4 S"})).await;
    assert_eq!(a.body["over"], true, "{}", a.text);
    assert_eq!(a.body["score"], json!([3, 7]));
    assert_eq!(a.body["winner"], "N");
    assert_eq!(a.body["to_move"], Value::Null);
    assert_eq!(a.body["legal"], json!([]));
    // The rules as an object.
    let a = post(
        &app,
        "/api/legal",
        json!({"rules": {"end": "mover-blocked"}, "position": "0,0,3,1,2,4 N"}),
    )
    .await;
    assert_eq!(a.body["over"], false, "{}", a.text);
    assert_eq!(a.body["legal"], json!([1, 2]));
}

#[tokio::test]
async fn malformed_requests_are_4xx_with_a_message() {
    let app = app();
    let cases: Vec<(&str, StatusCode, &[&str])> = vec![
        ("{", StatusCode::BAD_REQUEST, &["not valid JSON"]),
        ("[1,2]", StatusCode::BAD_REQUEST, &["JSON object", "array"]),
        ("42", StatusCode::BAD_REQUEST, &["JSON object", "number"]),
        (
            r#"{"colour": "red"}"#,
            StatusCode::BAD_REQUEST,
            &["unknown field 'colour'", "moves"],
        ),
        (
            r#"{"rules": "capture=sometimes"}"#,
            StatusCode::BAD_REQUEST,
            &["rules", "sometimes", "standard or empty"],
        ),
        (
            r#"{"rules": "speed=fast"}"#,
            StatusCode::BAD_REQUEST,
            &["unknown rules key 'speed'"],
        ),
        (
            r#"{"rules": {"capture": "x"}}"#,
            StatusCode::BAD_REQUEST,
            &["rules", "x"],
        ),
        (
            r#"{"rules": {"pie": "yes", "colour": 1}}"#,
            StatusCode::BAD_REQUEST,
            &["rules"],
        ),
        // An unknown key is named whatever its value's type (tester 23).
        (
            r#"{"rules": {"bogus": 1}}"#,
            StatusCode::BAD_REQUEST,
            &["field 'rules': unknown rules key 'bogus' (known: capture,"],
        ),
        (
            r#"{"rules": {"a b": "on"}}"#,
            StatusCode::BAD_REQUEST,
            &["field 'rules': unknown rules key 'a b'"],
        ),
        (
            r#"{"rules": 3}"#,
            StatusCode::BAD_REQUEST,
            &["rules", "number"],
        ),
        (
            r#"{"position": "4,4,x,4 S"}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["position", "column"],
        ),
        (
            r#"{"position": "4,4,4 S"}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["position", "2m+2"],
        ),
        (
            r#"{"position": 7}"#,
            StatusCode::BAD_REQUEST,
            &["'position' must be a string"],
        ),
        (
            r#"{"position": "1,1,0,1,1,0 S", "houses": 2}"#,
            StatusCode::BAD_REQUEST,
            &["either 'position'"],
        ),
        (
            r#"{"houses": 13}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["'houses'", "13"],
        ),
        (
            r#"{"houses": 0}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["'houses'", "0"],
        ),
        (
            r#"{"houses": -1}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["field 'houses' must be a whole number from 1 to 12, not -1"],
        ),
        (
            r#"{"seeds": 30}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &[
                "field 'seeds' must be a whole number from 1 to 21",
                "255 seeds",
                "not 30",
            ],
        ),
        (
            r#"{"seeds": 0}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["field 'seeds' must be a whole number from 1 to 21", "not 0"],
        ),
        (
            r#"{"layout": [4, 300]}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["'layout' item 2", "300"],
        ),
        (
            r#"{"layout": "4,a"}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["'layout' item 2", "'a'"],
        ),
        (
            r#"{"layout": "4,256"}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["'layout' item 2", "256"],
        ),
        (
            r#"{"layout": [4, "5"]}"#,
            StatusCode::BAD_REQUEST,
            &["'layout' item 2"],
        ),
        (
            r#"{"houses": 2.5}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["field 'houses' must be a whole number from 1 to 12, not 2.5"],
        ),
        (
            r#"{"houses": "6"}"#,
            StatusCode::BAD_REQUEST,
            &["field 'houses' must be a number"],
        ),
        (
            r#"{"layout": [1,2], "seeds": 3}"#,
            StatusCode::BAD_REQUEST,
            &["'seeds' or 'layout'"],
        ),
        (
            r#"{"layout": []}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["'layout' is empty"],
        ),
        (
            r#"{"layout": [1,2], "houses": 3}"#,
            StatusCode::BAD_REQUEST,
            &["'houses' is 3", "2 houses"],
        ),
        (
            r#"{"mirrored": true}"#,
            StatusCode::BAD_REQUEST,
            &["'mirrored' needs a 'layout'"],
        ),
        (
            r#"{"moves": [3, 7]}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["move 2", "'7'", "no house 7"],
        ),
        (
            r#"{"moves": [3, 3]}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["move 2", "empty"],
        ),
        (
            r#"{"moves": ["3", "swap"]}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["move 2", "swap"],
        ),
        (
            r#"{"moves": ["three"]}"#,
            StatusCode::BAD_REQUEST,
            &["'moves' item 1", "three"],
        ),
        (
            r#"{"moves": [true]}"#,
            StatusCode::BAD_REQUEST,
            &["'moves' item 1", "boolean"],
        ),
        (
            r#"{"moves": ["3-6 2"]}"#,
            StatusCode::BAD_REQUEST,
            &["'moves' item 1: '3-6 2' holds white space; one item is one turn"],
        ),
        (
            r#"{"moves": {"a": 1}}"#,
            StatusCode::BAD_REQUEST,
            &["'moves'", "object"],
        ),
        (
            r#"{"moves": [-3]}"#,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["move 1 ('-3') of 'moves': -3 is negative: houses are numbered 1 to 6"],
        ),
        // Fields that cannot go together are a 400 whatever their values.
        (
            r#"{"position": "1,1,0,1,1,0 S", "houses": -1}"#,
            StatusCode::BAD_REQUEST,
            &["either 'position'"],
        ),
        (
            r#"{"layout": [1,2], "seeds": -1}"#,
            StatusCode::BAD_REQUEST,
            &["'seeds' or 'layout'"],
        ),
        (
            r#"{"layout": [1,2], "houses": 2.5}"#,
            StatusCode::BAD_REQUEST,
            &["'houses' is 2.5 but 'layout' gives 2 houses"],
        ),
        (
            r#"{"layout": [4], "houses": 13}"#,
            StatusCode::BAD_REQUEST,
            &["'houses' is 13 but 'layout' gives 1 house"],
        ),
        // The disagreement is named whatever the counts (tester 13).
        (
            r#"{"layout": [300], "houses": 2}"#,
            StatusCode::BAD_REQUEST,
            &["'houses' is 2 but 'layout' gives 1 house"],
        ),
        (
            r#"{"layout": "x,y,z", "houses": 2}"#,
            StatusCode::BAD_REQUEST,
            &["'houses' is 2 but 'layout' gives 3 houses"],
        ),
        (
            r#"{"layout": [], "houses": 2}"#,
            StatusCode::BAD_REQUEST,
            &["'houses' is 2 but 'layout' gives 0 houses"],
        ),
        (
            r#"{"moves": [1e400]}"#,
            StatusCode::BAD_REQUEST,
            &["not valid JSON"],
        ),
    ];
    for (body, status, words) in cases {
        let a = send(&app, "POST", "/api/legal", body).await;
        assert_error(&a, status, words);
    }
}

#[tokio::test]
async fn play_reports_sowing_extra_turns_captures_swaps_and_the_end() {
    let app = app();
    // Extra turn: house 3 of Kalah(6,4) ends in the store.
    let a = post(&app, "/api/play", json!({"move": 3})).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["move"], "3");
    assert_eq!(a.body["side"], "S");
    assert_eq!(a.body["before"], "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    assert_eq!(a.body["outcome"]["path"], json!([3, 4, 5, 6]));
    assert_eq!(a.body["outcome"]["extra_turn"], true);
    assert_eq!(a.body["outcome"]["captured"], 0);
    assert_eq!(a.body["to_move"], "S");
    // Capture: South house 1 (one seed) lands in empty house 2, opposite North house 5 holds 6.
    let a = post(
        &app,
        "/api/play",
        json!({"position": "1,0,3,4,20,1,2,6,3,8 S", "move": "1"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["outcome"]["captured"], 7);
    assert_eq!(a.body["outcome"]["capture_bins"], json!([1, 7]));
    assert_eq!(a.body["outcome"]["extra_turn"], false);
    assert_eq!(a.body["position"], "0,0,3,4,27,1,2,0,3,8 N");
    // North's sowing skips South's store; a lap of 2m+1 seeds refills the origin.
    let a = post(
        &app,
        "/api/play",
        json!({"position": "1,1,0,5,0,0 N", "move": 1}),
    )
    .await;
    assert_eq!(
        a.body["outcome"]["path"],
        json!([4, 5, 0, 1, 3]),
        "{}",
        a.text
    );
    // A whole turn at once, with every step.
    let a = post(&app, "/api/play", json!({"move": "3-6"})).await;
    assert_eq!(a.body["move"], "3-6", "{}", a.text);
    assert_eq!(a.body["steps"].as_array().map(Vec::len), Some(2));
    assert_eq!(a.body["to_move"], "N");
    // `before` is the position before the whole turn, `outcome` its last action's.
    assert_eq!(a.body["before"], "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    assert_eq!(
        a.body["steps"][1]["before"],
        "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S"
    );
    assert_eq!(a.body["outcome"], a.body["steps"][1]["outcome"]);
    assert_eq!(a.body["outcome"]["extra_turn"], false);
    // The pie rule: North may swap after South's first turn.
    let a = post(
        &app,
        "/api/play",
        json!({"rules": "pie=on", "moves": [1], "move": "swap"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["outcome"]["swapped"], true);
    assert_eq!(a.body["outcome"]["path"], json!([]));
    let a = post(&app, "/api/play", json!({"moves": [1], "move": "swap"})).await;
    assert_error(&a, StatusCode::UNPROCESSABLE_ENTITY, &["swap", "pie rule"]);
    // The game ends: South's last seed goes home, North sweeps its own.
    let a = post(
        &app,
        "/api/play",
        json!({"position": "0,1,5,0,2,3 S", "move": 2}),
    )
    .await;
    assert_eq!(a.body["over"], true, "{}", a.text);
    assert_eq!(a.body["score"], json!([6, 5]));
    assert_eq!(a.body["winner"], "S");
    assert!(a.body["outcome"]["ended"]
        .as_str()
        .unwrap()
        .contains("South's row is empty"));
    // Where the seeds left in the houses went, under each leftover rule (tester 99: the page
    // never said, and under `nobody` North's seeds just vanished).
    for (rules, swept, words, score) in [
        ("", [0, 2], "go to their owners' stores", [6, 5]),
        ("leftovers=nobody", [0, 0], "count for nobody", [6, 3]),
        (
            "leftovers=emptier",
            [2, 0],
            "go to South, whose row is empty",
            [8, 3],
        ),
    ] {
        let a = post(
            &app,
            "/api/play",
            json!({"rules": rules, "position": "0,1,5,0,2,3 S", "move": 2}),
        )
        .await;
        assert_eq!(a.body["score"], json!(score), "{rules}: {}", a.text);
        assert_eq!(a.body["outcome"]["left"], json!([0, 2]), "{rules}");
        assert_eq!(a.body["outcome"]["swept"], json!(swept), "{rules}");
        let says = a.body["outcome"]["leftovers"].as_str().unwrap();
        assert!(says.contains(words), "{rules}: {says}");
    }
    let a = post(&app, "/api/play", json!({"move": 3})).await;
    assert_eq!(a.body["outcome"]["left"], json!([0, 0]));
    assert_eq!(a.body["outcome"]["swept"], json!([0, 0]));
    assert_eq!(a.body["outcome"]["leftovers"], Value::Null);
    // Bad moves.
    assert_error(
        &post(&app, "/api/play", json!({})).await,
        StatusCode::BAD_REQUEST,
        &["'move' is missing"],
    );
    assert_error(
        &post(&app, "/api/play", json!({"move": 9})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["no house 9"],
    );
    assert_error(
        &post(&app, "/api/play", json!({"move": "x"})).await,
        StatusCode::BAD_REQUEST,
        &["'x'"],
    );
    assert_error(
        &post(
            &app,
            "/api/play",
            json!({"move": "3"})
                .to_string()
                .replace('}', ",\"level\":\"easy\"}")
                .parse::<Value>()
                .unwrap(),
        )
        .await,
        StatusCode::BAD_REQUEST,
        &["unknown field 'level'"],
    );
    assert_error(
        &post(&app, "/api/play", json!({"move": "3-3"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["field 'move': '3-3': action 2 (house 3) cannot be played: house 3 is empty"],
    );
    // The turn named is the turn written (it was the last action's), also in 'moves' items.
    assert_error(
        &post(&app, "/api/play", json!({"move": "3-0"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["field 'move': '3-0': action 2 (house 0) cannot be played"],
    );
    assert_error(
        &post(&app, "/api/game", json!({"moves": ["3-3"]})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["'moves' item 1: '3-3': action 2 (house 3) cannot be played: house 3 is empty"],
    );
    assert_error(
        &post(
            &app,
            "/api/play",
            json!({"position": "0,0,3,1,2,4 S", "move": 1}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["the game is over"],
    );
}

#[tokio::test]
async fn game_replays_steps_and_turns() {
    let app = app();
    let a = post(&app, "/api/game", json!({"moves": "3-6 2"})).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["moves"], json!(["3", "6", "2"]));
    assert_eq!(a.body["steps"].as_array().unwrap().len(), 3);
    assert_eq!(
        a.body["steps"][1]["before"],
        "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S"
    );
    let turns = a.body["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["turn"], "3-6");
    assert_eq!(turns[0]["side"], "S");
    assert_eq!(turns[0]["first"], 0);
    assert_eq!(turns[1]["turn"], "2-"); // North's house 2 earns an extra turn: unfinished
    assert_eq!(turns[1]["open"], true);
    assert_eq!(turns[1]["first"], 2);
    assert_eq!(a.body["start"]["position"], "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    assert_eq!(a.body["start_position"], "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    assert_eq!(a.body["state"]["to_move"], "N");
    assert_eq!(a.body["rules"]["capture"], "standard");
    assert!(a.body["rules_text"]
        .as_str()
        .unwrap()
        .starts_with("capture=standard"));
    let a = post(
        &app,
        "/api/game",
        json!({"rules": "pie=on", "houses": 3, "seeds": 2}),
    )
    .await;
    assert_eq!(a.body["start_position"], "2,2,2,0,2,2,2,0 S opening");
}

#[tokio::test]
async fn engine_plays_a_legal_move() {
    let app = app();
    for level in ["beginner", "easy", "medium", "hard", "expert", "perfect"] {
        let a = post(
            &app,
            "/api/engine",
            json!({"houses": 4, "seeds": 2, "level": level, "time_ms": 100, "seed": 7}),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{level}: {}", a.text);
        let mv: u8 = a.body["move"].as_str().unwrap().parse().unwrap();
        assert!((1..=4).contains(&mv));
        assert_eq!(a.body["level"], level);
        assert_eq!(a.body["before"], "2,2,2,2,0,2,2,2,2,0 S");
        assert_eq!(a.body["pv"][0], a.body["move"]);
        // The answer's position is the move played.
        let b = post(
            &app,
            "/api/play",
            json!({"houses": 4, "seeds": 2, "move": mv}),
        )
        .await;
        assert_eq!(a.body["position"], b.body["position"]);
    }
    // A move that wins at once is found by every level above beginner.
    let a = post(
        &app,
        "/api/engine",
        json!({"position": "0,1,5,0,2,3 S", "level": "medium"}),
    )
    .await;
    assert_eq!(a.body["move"], "2", "{}", a.text);
    // Bad input.
    assert_error(
        &post(&app, "/api/engine", json!({"level": "grandmaster"})).await,
        StatusCode::BAD_REQUEST,
        &["'level'", "grandmaster", "perfect"],
    );
    assert_error(
        &post(&app, "/api/engine", json!({"time_ms": "fast"})).await,
        StatusCode::BAD_REQUEST,
        &["'time_ms'"],
    );
    assert_error(
        &post(&app, "/api/engine", json!({"position": "0,0,3,1,2,4 S"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["the game is over"],
    );
}

#[tokio::test]
async fn engine_time_is_capped_by_the_server() {
    let app = app(); // max 500 ms
    let started = std::time::Instant::now();
    let a = post(
        &app,
        "/api/engine",
        json!({"level": "perfect", "time_ms": 600000}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn analyze_gives_the_value_of_the_position_and_of_every_move() {
    let app = app();
    // The only sensible move wins 6-5: value +1 for South.
    let a = post(
        &app,
        "/api/analyze",
        json!({"position": "0,1,5,0,2,3 S", "time_ms": 200}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(
        a.body["moves"],
        json!([{"move": "2", "value": 1, "exact": a.body["moves"][0]["exact"]}])
    );
    assert_eq!(a.body["value"], 1);
    assert_eq!(a.body["value_south"], 1);
    assert_eq!(a.body["best"], json!(["2"]));
    // The same from North's side: value_south flips the sign.
    let a = post(
        &app,
        "/api/analyze",
        json!({"position": "0,2,3,0,1,5 N", "time_ms": 200}),
    )
    .await;
    assert_eq!(a.body["value"], 1, "{}", a.text);
    assert_eq!(a.body["value_south"], -1);
    // Kalah(6,4): the value is the best move's value; best lists the moves reaching it.
    let a = post(&app, "/api/analyze", json!({"time_ms": 200})).await;
    let moves = a.body["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6);
    let best = moves
        .iter()
        .map(|m| m["value"].as_i64().unwrap())
        .max()
        .unwrap();
    assert_eq!(a.body["value"], best);
    for b in a.body["best"].as_array().unwrap() {
        assert!(moves.iter().any(|m| m["move"] == *b && m["value"] == best));
    }
    // A finished game: no moves, the final difference from South's view.
    let a = post(&app, "/api/analyze", json!({"position": "0,0,3,1,2,4 S"})).await;
    assert_eq!(a.body["value"], Value::Null, "{}", a.text);
    assert_eq!(a.body["value_south"], -4);
    assert_eq!(a.body["exact"], true);
    assert_eq!(a.body["moves"], json!([]));
    assert_error(
        &post(&app, "/api/analyze", json!({"move": 3})).await,
        StatusCode::BAD_REQUEST,
        &["unknown field 'move'"],
    );
}

#[tokio::test]
async fn records_export_and_import() {
    let app = app();
    let a = post(
        &app,
        "/api/record/export",
        json!({"moves": "3-6 1", "south": "Ann", "north": "kalah engine (easy)"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let text = a.body["text"].as_str().unwrap();
    assert!(text.contains("[South \"Ann\"]"), "{text}");
    assert!(
        text.contains("[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]"),
        "{text}"
    );
    assert!(text.contains("1. S 3-6\n2. N 1\n"), "{text}");
    // Round trip through import, text and JSON forms.
    let b = post(&app, "/api/record/import", json!({"text": text})).await;
    assert_eq!(b.status, StatusCode::OK, "{}", b.text);
    assert_eq!(b.body["moves"], json!(["3", "6", "1"]));
    assert_eq!(b.body["south"], "Ann");
    assert_eq!(b.body["north"], "kalah engine (easy)");
    assert_eq!(b.body["state"]["to_move"], "S");
    let c = post(&app, "/api/record/import", json!({"text": a.body["json"]})).await;
    assert_eq!(c.status, StatusCode::OK, "{}", c.text);
    assert_eq!(c.body["moves"], b.body["moves"]);
    // A name with a line break or a tab: one line in both forms, so that either reads back the
    // same name (the text form turned it into a space and the JSON form kept it).
    let e = post(
        &app,
        "/api/record/export",
        json!({"south": "Ann\nLee", "north": "Bo\tKim"}),
    )
    .await;
    assert_eq!(e.status, StatusCode::OK, "{}", e.text);
    for form in ["text", "json"] {
        let r = post(&app, "/api/record/import", json!({"text": e.body[form]})).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(r.body["south"], "Ann Lee", "{form}");
        assert_eq!(r.body["north"], "Bo Kim", "{form}");
    }
    // The other tags: an import answers them, an export writes them back, in order, through
    // either form.
    let rec = "[Event \"Club night\"]\n[Date \"2026.12.02\"]\n\n1. S 3-6\n";
    let t = post(&app, "/api/record/import", json!({"text": rec})).await;
    assert_eq!(t.status, StatusCode::OK, "{}", t.text);
    let tags = json!([["Event", "Club night"], ["Date", "2026.12.02"]]);
    assert_eq!(t.body["tags"], tags);
    assert_eq!(b.body["tags"], json!([]));
    let x = post(
        &app,
        "/api/record/export",
        json!({"moves": t.body["moves"], "tags": t.body["tags"]}),
    )
    .await;
    assert_eq!(x.status, StatusCode::OK, "{}", x.text);
    let text = x.body["text"].as_str().unwrap();
    assert!(
        text.contains("[Result \"*\"]\n[Event \"Club night\"]\n[Date \"2026.12.02\"]\n"),
        "{text}"
    );
    for form in ["text", "json"] {
        let r = post(&app, "/api/record/import", json!({"text": x.body[form]})).await;
        assert_eq!(r.body["tags"], tags, "{form}: {}", r.text);
    }
    // The comments, likewise (tester 52: `#` comments were lost on the way back).
    let rec = "# club night\n1. S 3-6 # the book move\n";
    let t = post(&app, "/api/record/import", json!({"text": rec})).await;
    assert_eq!(t.status, StatusCode::OK, "{}", t.text);
    let comments = json!([[0, " club night"], [1, " the book move"]]);
    assert_eq!(t.body["comments"], comments);
    assert_eq!(b.body["comments"], json!([]));
    let x = post(
        &app,
        "/api/record/export",
        json!({"moves": "3-6 1", "comments": t.body["comments"]}),
    )
    .await;
    assert_eq!(x.status, StatusCode::OK, "{}", x.text);
    let text = x.body["text"].as_str().unwrap();
    assert!(
        text.ends_with("\n# club night\n1. S 3-6\n# the book move\n2. N 1\n"),
        "{text}"
    );
    for form in ["text", "json"] {
        let r = post(&app, "/api/record/import", json!({"text": x.body[form]})).await;
        assert_eq!(r.body["comments"], comments, "{form}: {}", r.text);
    }
    for bad in [json!("x"), json!([[1]]), json!([["1", "x"]])] {
        assert_error(
            &post(&app, "/api/record/export", json!({"comments": bad})).await,
            StatusCode::BAD_REQUEST,
            &["field 'comments' must be a list of [turns before it, text] pairs"],
        );
    }
    // The turn number is read as every whole number of the API (tester 92): `1.0` is 1, a
    // negative or fractional one a 422.
    let r = post(
        &app,
        "/api/record/export",
        json!({"moves": "3-6 1", "comments": [[1.0, " the book move"]]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(
        r.body["text"]
            .as_str()
            .unwrap()
            .ends_with("1. S 3-6\n# the book move\n2. N 1\n"),
        "{}",
        r.text
    );
    for (bad, shown) in [
        (json!(-1), "-1"),
        (json!(1.5), "1.5"),
        (json!(-2.5), "-2.5"),
    ] {
        assert_error(
            &post(&app, "/api/record/export", json!({"comments": [[0, "a"], [bad, "x"]]})).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            &[&format!(
                "field 'comments', item 2: the turn number must be a whole number, 0 or more, not {shown}"
            )],
        );
    }
    // Tags of the wrong shape, or named so that no record could carry them back.
    for bad in [
        json!("Event"),
        json!([["Event"]]),
        json!([["Event", 3]]),
        json!({"Event": "x"}),
    ] {
        assert_error(
            &post(&app, "/api/record/export", json!({"tags": bad})).await,
            StatusCode::BAD_REQUEST,
            &["field 'tags' must be a list of [name, value] pairs of strings"],
        );
    }
    for (name, says) in [
        (
            "South",
            "'South' is the standard tag South, given as the field 'south'",
        ),
        (
            "Reslt",
            "'Reslt' is a near miss of the standard tag Result, written from the moves",
        ),
        (
            "Start",
            "'Start' is the standard tag Start, given as the field 'position'",
        ),
        ("two words", "'two words' is not a tag name"),
        ("", "'' is not a tag name"),
        ("Ev]ent", "'Ev]ent' is not a tag name"),
    ] {
        assert_error(
            &post(
                &app,
                "/api/record/export",
                json!({"tags": [["Event", "x"], [name, "y"]]}),
            )
            .await,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["field 'tags', item 2: ", says],
        );
    }
    // A record that record/import could not take back is refused (tester 82: 32 700 quotes in
    // a tag, escaped twice over, made an import body of 131 KB); one just under the limit is
    // given out and imports back.
    let limit = config().max_body_bytes;
    let quotes = "\"".repeat(limit / 3);
    assert_error(
        &post(
            &app,
            "/api/record/export",
            json!({"moves": "3-6 1", "tags": [["Event", quotes]]}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &[
            "the record's text form would make a record/import body of ",
            &format!("over the server's limit of {limit} bytes (max_body_bytes)"),
            &format!(
                "imported back: shorten the field 'tags' ({} characters)",
                limit / 3 + 5
            ),
        ],
    );
    // The field that makes it long is named (tester 107: a long name was blamed on "the tags
    // or comments"), the longest first.
    let name = "é".repeat(limit / 5);
    assert_error(
        &post(
            &app,
            "/api/record/export",
            json!({"south": name, "tags": [["Event", "x"]], "comments": [[1, "a fine start"]]}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &[&format!(
            "imported back: shorten the fields 'south' ({} characters), 'comments' (12 characters) or 'tags' (6 characters)",
            limit / 5
        )],
    );
    let fits = "x".repeat(limit / 3);
    let a = post(
        &app,
        "/api/record/export",
        json!({"moves": "3-6 1", "tags": [["Event", fits]]}),
    )
    .await;
    assert_eq!(
        a.status,
        StatusCode::OK,
        "{}",
        &a.text[..200.min(a.text.len())]
    );
    for form in ["text", "json"] {
        let back = post(&app, "/api/record/import", json!({"text": a.body[form]})).await;
        assert_eq!(
            back.status,
            StatusCode::OK,
            "{form}: {}",
            &back.text[..200.min(back.text.len())]
        );
        assert_eq!(back.body["tags"][0][1].as_str().unwrap().len(), limit / 3);
    }
    // A record with other rules and start.
    let rec = "[Rules \"capture=empty pie=on\"]\n[Start \"2,2,2,0,2,2,2,0 S opening\"]\n\n1. S 1\n2. N swap\n";
    let d = post(&app, "/api/record/import", json!({"text": rec})).await;
    assert_eq!(d.status, StatusCode::OK, "{}", d.text);
    assert_eq!(d.body["rules"]["capture"], "empty");
    assert_eq!(d.body["rules"]["pie"], true);
    assert_eq!(d.body["moves"], json!(["1", "swap"]));
    // A position whose tag fits neither the rules nor the side to move: the rules are named
    // first (tester 50: "phase 'pie' needs North to move" without the pie rule).
    assert_error(
        &post(
            &app,
            "/api/legal",
            json!({"position": "3,3,3,3,0,3,3,3,3,0 S pie"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &[
            "field 'position'",
            "phase tag 'pie' belongs to the opening rules",
            "pie=on",
        ],
    );
    assert_error(
        &post(
            &app,
            "/api/legal",
            json!({"position": "3,3,3,3,0,3,3,3,3,0 S pie", "rules": "pie=on"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["field 'position'", "phase tag 'pie' needs North to move"],
    );
    // A start phase tag without its opening rules is refused, as `kalah play --load` does
    // (second fresh-user tester).
    assert_error(
        &post(
            &app,
            "/api/record/import",
            json!({"text": "[Start \"2,2,2,0,2,2,2,0 S opening\"]\n1. S 1\n"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["bad game record", "phase tag 'opening'", "pie=on"],
    );
    // An empty text is refused, as `kalah play --load` refuses an empty file (tester 11: it
    // came back as the default start).
    // A byte-order mark (some editors write one into an empty file) and blank lines are empty
    // too, as for `kalah play --load` (tester: "\u{feff}" came back as the default start).
    for text in [
        "",
        " \n\n",
        "\u{feff}",
        "\u{feff}\n\n",
        "\u{feff}\u{feff} \r\n\t",
    ] {
        assert_error(
            &post(&app, "/api/record/import", json!({ "text": text })).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["bad game record", "the text is empty"],
        );
    }
    // A byte-order mark before a record is still skipped.
    let a = post(
        &app,
        "/api/record/import",
        json!({"text": "\u{feff}1. S 3-6\n"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["moves"], json!(["3", "6"]));
    // Bad records name the line or turn.
    assert_error(
        &post(
            &app,
            "/api/record/import",
            json!({"text": "1. S 3-6\n2. N 9\n"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["bad game record", "turn 2", "no house 9"],
    );
    assert_error(
        &post(
            &app,
            "/api/record/import",
            json!({"text": "[Rules \"capture=maybe\"]\n"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["line 1", "maybe"],
    );
    assert_error(
        &post(
            &app,
            "/api/record/import",
            json!({"text": "{\"rules\": 1}"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["bad JSON game record"],
    );
    // Said once (it was "bad game record: bad JSON game record: ..."), and text after the
    // record's object is refused, not dropped (tester 98).
    let answer = post(
        &app,
        "/api/record/import",
        json!({"text": "{\"turns\": [\"3-1\"]} {\"turns\": [\"1\"]}"}),
    )
    .await;
    assert_error(
        &answer,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["text after the record at line 1 column 20"],
    );
    assert!(
        !answer.text.contains("bad game record: bad JSON"),
        "{}",
        answer.text
    );
    assert_error(
        &post(&app, "/api/record/import", json!({})).await,
        StatusCode::BAD_REQUEST,
        &["'text' is missing"],
    );
    assert_error(
        &post(&app, "/api/record/export", json!({"south": 5})).await,
        StatusCode::BAD_REQUEST,
        &["'south' must be a string"],
    );
}

#[tokio::test]
async fn bodies_over_the_limit_get_413() {
    let app = app(); // 4096 bytes
    let moves: Vec<u8> = vec![1; 3000];
    let a = post(&app, "/api/legal", json!({ "moves": moves })).await;
    assert_error(&a, StatusCode::PAYLOAD_TOO_LARGE, &["4096 bytes"]);
}

#[tokio::test]
async fn past_the_bound_on_searches_the_answer_is_503_at_once() {
    let app = router(Config {
        engine_slots: 0,
        ..config()
    });
    for path in ["/api/engine", "/api/analyze"] {
        let a = post(&app, path, json!({})).await;
        assert_error(
            &a,
            StatusCode::SERVICE_UNAVAILABLE,
            &["busy", "every engine slot is in use (0 in all)"],
        );
        assert_eq!(a.headers[header::RETRY_AFTER], "1");
    }
    // The cheap endpoints do not need a slot.
    assert_eq!(
        post(&app, "/api/play", json!({"move": 1})).await.status,
        StatusCode::OK
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_searches_are_answered_or_refused_never_queued() {
    let app = router(Config {
        engine_slots: 1,
        ..config()
    });
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            post(&app, "/api/analyze", json!({"time_ms": 150}))
                .await
                .status
        }));
    }
    let mut ok = 0;
    for t in tasks {
        let s = t.await.unwrap();
        assert!(
            s == StatusCode::OK || s == StatusCode::SERVICE_UNAVAILABLE,
            "{s}"
        );
        ok += usize::from(s == StatusCode::OK);
    }
    assert!(ok >= 1);
}

#[tokio::test]
async fn a_real_listener_serves_and_shuts_down() {
    let server = wire::Server::start(config()).await;
    let resp = raw_request(server.addr, "POST", "/api/play", r#"{"move": 3}"#).await;
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
    assert!(resp.contains("\"extra_turn\":true"), "{resp}");
    server.stop().await;
}

/// The text of an HTTP/1.1 request with a JSON `body`, asking to close the connection after
/// the answer if `close`.
fn request_text(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    close: bool,
) -> String {
    let connection = if close { "Connection: close\r\n" } else { "" };
    format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{connection}\r\n{body}",
        body.len()
    )
}

/// A request over a fresh connection to `addr`, answered whole (`Connection: close`).
async fn raw_request(addr: std::net::SocketAddr, method: &str, path: &str, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = request_text(addr, method, path, body, true);
    s.write_all(req.as_bytes()).await.unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).await.unwrap();
    resp
}

/// A server with one engine slot and up to 10 s of thinking time.
async fn one_slot_server() -> wire::Server {
    wire::Server::start(Config {
        engine_slots: 1,
        max_time: Duration::from_secs(10),
        ..config()
    })
    .await
}

/// The JSON body of a whole HTTP answer.
fn json_body(resp: &str) -> Value {
    serde_json::from_str(resp.split("\r\n\r\n").nth(1).unwrap()).unwrap()
}

/// The engine slots free at `addr`, as `/api/info` says.
async fn slots_free(addr: std::net::SocketAddr) -> u64 {
    let resp = raw_request(addr, "GET", "/api/info", "").await;
    json_body(&resp)["engine_slots_free"].as_u64().unwrap()
}

/// An engine request that uses all its 8 s: Kalah(6,6) cannot be proven in that time.
const LONG_SEARCH: &str = r#"{"houses": 6, "seeds": 6, "level": "perfect", "time_ms": 8000}"#;

/// A client that hangs up during an engine request gives its slot back at once: the search is
/// stopped, not left to think for the rest of its time (tester 41: a few requests with long
/// `time_ms`, closed at once, locked every slot for their whole time).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_hangs_up_frees_its_engine_slot() {
    use tokio::io::AsyncWriteExt;
    let server = one_slot_server().await;
    let addr = server.addr;
    let free = || slots_free(addr);
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = request_text(addr, "POST", "/api/analyze", LONG_SEARCH, false);
    s.write_all(req.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(free().await, 0, "the analysis holds the only slot");
    drop(s);
    let hung_up = std::time::Instant::now();
    while free().await == 0 {
        assert!(
            hung_up.elapsed() < Duration::from_secs(3),
            "the slot is still taken {:?} after the client hung up",
            hung_up.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.stop().await;
}

/// Shuts down the sending side of `s` and reads the whole answer (at most 10 s).
async fn half_close_and_read(s: &mut tokio::net::TcpStream) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    s.shutdown().await.unwrap();
    let mut resp = String::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_string(&mut resp))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    resp
}

/// A client that shuts down its sending side after its request (a half-close: `nc -N`, a
/// script's `shutdown(SHUT_WR)`) still gets the answer (tester 92: 29 of 30 such requests got
/// none, on every endpoint, as the server took the end of the request stream for a hang-up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_closed_request_is_answered() {
    use tokio::io::AsyncWriteExt;
    let server = wire::Server::start(config()).await;
    let addr = server.addr;
    for (method, path, body) in [
        ("GET", "/api/info", ""),
        ("POST", "/api/legal", "{}"),
        ("POST", "/api/play", r#"{"move": 3}"#),
    ] {
        for close in [false, true] {
            for _ in 0..10 {
                let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
                let req = request_text(addr, method, path, body, close);
                s.write_all(req.as_bytes()).await.unwrap();
                let resp = half_close_and_read(&mut s).await;
                assert!(
                    resp.starts_with("HTTP/1.1 200"),
                    "{method} {path} (Connection: close {close}), half-closed: got {resp:?}"
                );
            }
        }
    }
    server.stop().await;
}

/// During an engine request the server cannot tell a half-close from a hang-up: the search
/// stops at once, as for a hang-up (its slot is free again), and the answer, with what the
/// search had found, is written for a client that is still reading.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_closed_engine_request_is_answered_at_once() {
    use tokio::io::AsyncWriteExt;
    let server = one_slot_server().await;
    let addr = server.addr;
    for path in ["/api/analyze", "/api/engine"] {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let req = request_text(addr, "POST", path, LONG_SEARCH, false);
        s.write_all(req.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let closed = std::time::Instant::now();
        let resp = half_close_and_read(&mut s).await;
        assert!(
            closed.elapsed() < Duration::from_secs(3),
            "{path}: answered {:?} after the half-close",
            closed.elapsed()
        );
        assert!(resp.starts_with("HTTP/1.1 200"), "{path}: {resp:?}");
        let body = json_body(&resp);
        assert_eq!(body["exact"], json!(false), "{path}: {body}");
        assert_eq!(slots_free(addr).await, 1, "{path}: the slot is free again");
    }
    server.stop().await;
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            (0u32..20).prop_map(|n| json!(n)),
            "[0-9a-z ,=-]{0,12}".prop_map(Value::String),
            Just(json!("4,4,4,4,4,4,0,4,4,4,4,4,4,0 S")),
            Just(json!("swap")),
        ];
        leaf.prop_recursive(2, 8, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("rules".to_string()),
                        Just("position".to_string()),
                        Just("houses".to_string()),
                        Just("seeds".to_string()),
                        Just("layout".to_string()),
                        Just("moves".to_string()),
                        Just("move".to_string()),
                        Just("capture".to_string()),
                        Just("pie".to_string()),
                        "[a-z]{1,6}",
                    ],
                    inner,
                    0..4
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Whatever the body, the cheap endpoints answer 200 or a 4xx with a message: never a
        /// server error, never a panic.
        #[test]
        fn junk_never_gives_a_server_error(body in json_value(), raw in "[ -~]{0,40}", which in 0usize..5) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let path = ["/api/legal", "/api/play", "/api/game", "/api/record/export", "/api/record/import"][which];
            for text in [body.to_string(), raw.clone()] {
                let a = rt.block_on(send(&app(), "POST", path, text.clone()));
                prop_assert!(a.status == StatusCode::OK || a.status.is_client_error(), "{} {} -> {} {}", path, text, a.status, a.text);
                if a.status.is_client_error() {
                    prop_assert!(a.body["error"].as_str().is_some_and(|m| !m.is_empty()), "{}", a.text);
                }
            }
        }
    }
}

/// The build of the databases of Kalah(3,·), standard rules, to 30 seeds under `root` (a
/// fraction of a second).
fn three_houses_to_30(root: &std::path::Path) -> kalah_egdb::BuildPlan {
    kalah_egdb::BuildPlan {
        root: root.to_path_buf(),
        houses: 3,
        rules: kalah_core::Rules::default(),
        max_seeds: 30,
        threads: Some(1),
    }
}

/// With `Config::egdb_dir` set, the engine answers from the endgame databases: the same move
/// value in a small fraction of the nodes. A directory without a matching set changes nothing.
#[tokio::test]
async fn the_engine_uses_endgame_databases_when_configured() {
    let dir = tempfile::tempdir().unwrap();
    let plan = three_houses_to_30(dir.path());
    plan.run(&std::sync::atomic::AtomicBool::new(false), &|_| {})
        .unwrap();
    let ask = json!({"position": "5,5,5,0,5,5,5,0 S", "level": "perfect", "time_ms": 500});
    let without = post(&app(), "/api/engine", ask.clone()).await;
    let with_db = router(Config {
        egdb_dir: Some(dir.path().to_path_buf()),
        ..config()
    });
    let with = post(&with_db, "/api/engine", ask.clone()).await;
    for a in [&without, &with] {
        assert_eq!(a.status, StatusCode::OK, "{}", a.text);
        assert_eq!(a.body["exact"], true, "{}", a.text);
    }
    assert_eq!(with.body["value"], without.body["value"]);
    let (n_with, n_without) = (
        with.body["nodes"].as_u64().unwrap(),
        without.body["nodes"].as_u64().unwrap(),
    );
    assert!(
        n_with * 10 < n_without,
        "{n_with} nodes with the databases, {n_without} without"
    );
    let info = send(&with_db, "GET", "/api/info", "").await;
    assert_eq!(info.body["egdb_dir"], dir.path().display().to_string());
    // Analyses are exact too, and agree with the engine's value.
    let an = post(&with_db, "/api/analyze", ask).await;
    assert_eq!(an.status, StatusCode::OK, "{}", an.text);
    assert_eq!(an.body["exact"], true, "{}", an.text);
    assert_eq!(an.body["value"], with.body["value"]);
    // Another board size: no databases there, the engine still answers.
    let other = post(
        &with_db,
        "/api/engine",
        json!({"houses": 4, "seeds": 2, "level": "perfect", "time_ms": 200}),
    )
    .await;
    assert_eq!(other.status, StatusCode::OK, "{}", other.text);
}

/// A set missing or damaged when the server first needs it is looked for again after
/// `Config::egdb_retry`: one built or repaired while the server runs is used without a restart
/// (tester 107: the server went on without it).
#[tokio::test]
async fn a_set_built_or_repaired_while_serving_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let plan = three_houses_to_30(dir.path());
    let app = router(Config {
        egdb_dir: Some(dir.path().to_path_buf()),
        egdb_retry: Duration::from_millis(50),
        ..config()
    });
    let ask = json!({"position": "5,5,5,0,5,5,5,0 S", "level": "perfect", "time_ms": 500});
    let nodes = |a: &Answer| {
        assert_eq!(a.status, StatusCode::OK, "{}", a.text);
        a.body["nodes"].as_u64().unwrap()
    };
    let none = nodes(&post(&app, "/api/engine", ask.clone()).await);
    // Built while the server runs: used once the retry time has passed.
    plan.run(&std::sync::atomic::AtomicBool::new(false), &|_| {})
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let built = nodes(&post(&app, "/api/engine", ask.clone()).await);
    assert!(
        built * 10 < none,
        "{built} nodes with the databases, {none} without"
    );
    // Damaged before a server first opens it, then repaired by a build.
    let app = router(Config {
        egdb_dir: Some(dir.path().to_path_buf()),
        egdb_retry: Duration::from_millis(50),
        ..config()
    });
    let k0 = dir
        .path()
        .join(kalah_egdb::file::set_dir_name(
            3,
            &kalah_core::Rules::default(),
        ))
        .join("k000.egdb");
    std::fs::write(&k0, b"KALAH").unwrap();
    let damaged = nodes(&post(&app, "/api/engine", ask.clone()).await);
    assert!(damaged > 10 * built, "{damaged} nodes with a damaged set");
    plan.run(&std::sync::atomic::AtomicBool::new(false), &|_| {})
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(nodes(&post(&app, "/api/engine", ask).await), built);
}

// --- Turn texts, phase tags and small input checks ---------------------------------------------

#[tokio::test]
async fn a_turn_text_ends_where_the_movers_turn_ends() {
    let app = app();
    // South's 3 earns an extra turn, 6 ends the turn: North's 1 may not follow in the same text.
    let words: &[&str] = &["'3-6-1' goes on after action 2 (house 6), which ends the turn"];
    assert_error(
        &post(&app, "/api/play", json!({"move": "3-6-1"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &[&["field 'move'"], words].concat(),
    );
    assert_error(
        &post(&app, "/api/legal", json!({"moves": ["3-6-1"]})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &[&["'moves' item 1"], words].concat(),
    );
    assert_error(
        &post(&app, "/api/game", json!({"moves": "2 3-6-1"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &[
            "'moves' item 2",
            "'3-6-1' goes on after action 2 (house 6), which ends the turn",
        ],
    );
    // The same moves as separate actions, or as whole turns, are fine.
    for moves in [json!([3, 6, 1]), json!(["3-6", "1"]), json!("3-6 1")] {
        let a = post(&app, "/api/legal", json!({ "moves": moves })).await;
        assert_eq!(a.status, StatusCode::OK, "{moves}: {}", a.text);
        assert_eq!(
            a.body["position"], "4,4,0,5,5,0,2,0,6,6,6,5,5,0 S",
            "{moves}"
        );
    }
    let a = post(&app, "/api/play", json!({"move": "3-6"})).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["to_move"], "N");
}

#[tokio::test]
async fn open_turns_as_api_game_writes_them_are_accepted() {
    let app = app();
    let g = post(&app, "/api/game", json!({"moves": "3-6 2"})).await;
    assert_eq!(g.status, StatusCode::OK, "{}", g.text);
    let turns: Vec<String> = g.body["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["turn"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(turns, ["3-6", "2-"]);
    // Fed back, as an array or a string, the turns give the same game.
    for moves in [json!(turns), json!(turns.join(" "))] {
        let a = post(&app, "/api/game", json!({ "moves": moves })).await;
        assert_eq!(a.status, StatusCode::OK, "{moves}: {}", a.text);
        assert_eq!(a.body["moves"], g.body["moves"], "{moves}");
        assert_eq!(a.body["state"], g.body["state"], "{moves}");
    }
    let a = post(&app, "/api/play", json!({"move": "3-"})).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["move"], "3");
    assert_eq!(a.body["to_move"], "S");
    // A '-' claims an extra turn: refused where the move earns none.
    assert_error(
        &post(&app, "/api/play", json!({"move": "3-6-"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["'3-6-' ends with '-', but action 2 (house 6) earns no extra turn"],
    );
    assert_error(
        &post(&app, "/api/legal", json!({"moves": "1-"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &[
            "'moves' item 1",
            "'1-' ends with '-', but action 1 (house 1) earns no extra turn",
        ],
    );
    assert_error(
        &post(&app, "/api/legal", json!({"moves": "-"})).await,
        StatusCode::BAD_REQUEST,
        &["'moves' item 1 ('-')", "an empty action"],
    );
}

#[tokio::test]
async fn house_numbers_are_plain_digits() {
    let app = app();
    for (mv, why) in [
        ("+3", "not a move"),
        ("03", "not a move"),
        ("3.0", "not a move"),
        ("0x3", "not a move"),
        ("-3", "an empty action"),
        ("3--6", "an empty action"),
    ] {
        assert_error(
            &post(&app, "/api/play", json!({ "move": mv })).await,
            StatusCode::BAD_REQUEST,
            &["field 'move'", why],
        );
        assert_error(
            &post(&app, "/api/legal", json!({ "moves": [mv] })).await,
            StatusCode::BAD_REQUEST,
            &["'moves' item 1", why],
        );
    }
    // Plain digits that are no house are a house out of range (a 422), as house 7 is.
    assert_error(
        &post(&app, "/api/play", json!({"move": "300"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["move '300': there is no house 300: houses are numbered 1 to 6"],
    );
    for mv in [
        json!("3"),
        json!(" 3 "),
        json!(3),
        json!("3-6"),
        json!("3,6"),
    ] {
        let a = post(&app, "/api/play", json!({ "move": mv })).await;
        assert_eq!(a.status, StatusCode::OK, "{mv}: {}", a.text);
    }
    let a = post(
        &app,
        "/api/play",
        json!({"rules": "pie=on", "moves": [1], "move": "SWAP"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
}

/// A phase tag on a position whose game is over under the request's rules is refused (web
/// tester, 2 Dec 2026: `0,1,1,0 N pie` was accepted and swept, `1,0,0,1 N pie` refused); under
/// the mover-blocked end that game goes on.
#[tokio::test]
async fn a_phase_tag_needs_a_game_that_is_not_over_under_the_rules() {
    let app = app();
    for path in ["/api/legal", "/api/game", "/api/analyze"] {
        let a = post(
            &app,
            path,
            json!({"rules": "pie=on", "position": "0,1,1,0 N pie"}),
        )
        .await;
        assert_error(
            &a,
            StatusCode::UNPROCESSABLE_ENTITY,
            &[
                "field 'position'",
                "phase tag 'pie' needs a game that is not over",
                "South's row is empty",
            ],
        );
    }
    let a = post(
        &app,
        "/api/legal",
        json!({"rules": "pie=on end=mover-blocked", "position": "0,1,1,0 N pie"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let text = "[Rules \"pie=on\"]\n[Start \"0,0,0,0,0,0,1,0,0,0,0,0,1,0 N pie\"]\n";
    let a = post(&app, "/api/record/import", json!({ "text": text })).await;
    assert_error(
        &a,
        StatusCode::UNPROCESSABLE_ENTITY,
        &[
            "bad game record",
            "phase tag 'pie' needs a game that is not over",
        ],
    );
}

/// A layout refused by its counts names the field (web tester, 2 Dec 2026: the bare
/// "a side must have 1 to 12 houses, not 13").
#[tokio::test]
async fn a_refused_layout_names_the_field() {
    let app = app();
    for (layout, words) in [
        (
            json!([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
            "1 to 12 houses, not 13",
        ),
        (json!([0, 0, 0]), "no seeds"),
        (json!([255]), "510 seeds"),
    ] {
        let a = post(&app, "/api/legal", json!({ "layout": layout })).await;
        assert_error(
            &a,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["field 'layout': ", words],
        );
    }
}

#[tokio::test]
async fn phase_tags_need_the_opening_rules_they_belong_to() {
    let app = app();
    let refused = [
        (
            "capture=standard",
            "3,3,3,0,3,3,3,0 N pie",
            "'pie'",
            "pie=on",
        ),
        (
            "first-move-extra-turn=off",
            "3,3,3,0,3,3,3,0 N pie",
            "'pie'",
            "pie=on",
        ),
        (
            "capture=standard",
            "3,3,3,0,3,3,3,0 S opening",
            "'opening'",
            "first-move-extra-turn=off",
        ),
        (
            "capture=standard",
            "0,4,4,1,3,3,3,0 S first-turn",
            "'first-turn'",
            "pie=on",
        ),
        // No first turn goes on under the Manchester rule (tester 45: the tag was allowed).
        (
            "pie=on first-move-extra-turn=off",
            "0,4,4,1,3,3,3,0 S first-turn",
            "'first-turn'",
            "use pie=on with first-move-extra-turn=on",
        ),
    ];
    for (rules, position, tag, rule) in refused {
        for path in [
            "/api/legal",
            "/api/play",
            "/api/game",
            "/api/engine",
            "/api/analyze",
        ] {
            let mut body = json!({"rules": rules, "position": position});
            if path == "/api/play" {
                body["move"] = json!(1);
            }
            let a = post(&app, path, body).await;
            assert_error(
                &a,
                StatusCode::UNPROCESSABLE_ENTITY,
                &[
                    "field 'position'",
                    "phase tag",
                    tag,
                    rule,
                    "leave the tag out",
                ],
            );
        }
    }
    let accepted = [
        ("pie=on", "3,3,3,0,3,3,3,0 N pie"),
        ("pie=on", "3,3,3,0,3,3,3,0 S opening"),
        ("first-move-extra-turn=off", "3,3,3,0,3,3,3,0 S opening"),
        ("pie=on", "0,4,4,1,3,3,3,0 S first-turn"),
        ("capture=standard", "3,3,3,0,3,3,3,0 S"),
    ];
    for (rules, position) in accepted {
        let a = post(
            &app,
            "/api/legal",
            json!({"rules": rules, "position": position}),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{rules} {position}: {}", a.text);
        assert_eq!(a.body["position"], position);
    }
    // Under standard rules the API never hands out a tagged position.
    let a = post(
        &app,
        "/api/play",
        json!({"houses": 3, "seeds": 3, "move": 1}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["before"], "3,3,3,0,3,3,3,0 S");
    assert_eq!(a.body["phase"], Value::Null);
}

#[tokio::test]
async fn zero_thinking_time_is_refused() {
    let app = app(); // max 500 ms
    for path in ["/api/engine", "/api/analyze"] {
        assert_error(
            &post(&app, path, json!({"time_ms": 0})).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["'time_ms'", "1 to 500 ms", "not 0"],
        );
    }
    let a = post(
        &app,
        "/api/analyze",
        json!({"houses": 2, "seeds": 1, "time_ms": 1}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
}

/// A number given as a house that is no house (above the board's houses, however large,
/// negative or not whole) is a number out of range: a 422 worded as for house 7, refused when
/// its move comes up. A value of another type stays a 400 (tester: -1, 256, 65536 and
/// 99999999999999999999 were 400 "is not a house number", 7 a 422).
#[tokio::test]
async fn numbers_that_are_no_house_are_refused_as_house_7_is() {
    let app = app();
    let plays: &[(&str, &str)] = &[
        (r#"{"move": 7}"#, "move '7': there is no house 7: houses are numbered 1 to 6"),
        (r#"{"move": "7"}"#, "move '7': there is no house 7: houses are numbered 1 to 6"),
        (r#"{"move": 256}"#, "move '256': there is no house 256: houses are numbered 1 to 6"),
        (r#"{"move": "65536"}"#, "move '65536': there is no house 65536: houses are numbered 1 to 6"),
        (
            r#"{"move": "99999999999999999999"}"#,
            "move '99999999999999999999': there is no house 99999999999999999999: houses are numbered 1 to 6",
        ),
        // A JSON number that large is read as a double.
        (r#"{"move": 99999999999999999999}"#, "there is no house 1e+20: houses are numbered 1 to 6"),
        // A whole number sent with an exponent is shown whole (tester 92: "10000000000.0").
        (r#"{"move": 1e10}"#, "there is no house 10000000000: houses are numbered 1 to 6"),
        (r#"{"move": -1}"#, "move '-1': -1 is negative: houses are numbered 1 to 6"),
        (r#"{"move": 2.5}"#, "move '2.5': 2.5 is not a whole number: houses are numbered 1 to 6"),
        (r#"{"move": 0}"#, "move '0': there is no house 0: houses are numbered 1 to 6"),
        (r#"{"houses": 4, "move": 300}"#, "there is no house 300: houses are numbered 1 to 4"),
        (
            r#"{"move": "3-256"}"#,
            "field 'move': '3-256': action 2 (house 256) cannot be played: there is no house 256: houses are numbered 1 to 6",
        ),
        // The turn is named as written, also when an earlier action is refused.
        (
            r#"{"move": "6-256"}"#,
            "field 'move': '6-256' goes on after action 1 (house 6), which ends the turn",
        ),
        (
            r#"{"move": "3-3-999"}"#,
            "field 'move': '3-3-999': action 2 (house 3) cannot be played: house 3 is empty",
        ),
        // As for house 7: a finished game first.
        (r#"{"position": "0,0,3,1,2,4 S", "move": 256}"#, "move '256': the game is over"),
        (r#"{"position": "0,0,3,1,2,4 S", "move": 7}"#, "move '7': the game is over"),
    ];
    for (body, msg) in plays {
        let a = send(&app, "POST", "/api/play", *body).await;
        assert_error(&a, StatusCode::UNPROCESSABLE_ENTITY, &[msg]);
    }
    let games: &[(&str, &str)] = &[
        (
            r#"{"moves": [7]}"#,
            "move 1 ('7') of 'moves': there is no house 7: houses are numbered 1 to 6",
        ),
        (
            r#"{"moves": [3, -1]}"#,
            "move 2 ('-1') of 'moves': -1 is negative: houses are numbered 1 to 6",
        ),
        (
            r#"{"moves": [256]}"#,
            "move 1 ('256') of 'moves': there is no house 256: houses are numbered 1 to 6",
        ),
        (
            r#"{"moves": [65536]}"#,
            "move 1 ('65536') of 'moves': there is no house 65536: houses are numbered 1 to 6",
        ),
        (
            r#"{"moves": "3 1e3"}"#,
            "'moves' item 2: '1e3' is not a move",
        ),
        (
            r#"{"moves": "3-6 300"}"#,
            "move 3 ('300') of 'moves': there is no house 300: houses are numbered 1 to 6",
        ),
        (
            r#"{"moves": ["3-256-"]}"#,
            "'moves' item 1: '3-256': action 2 (house 256) cannot be played: there is no house 256",
        ),
        // In the order of the moves: an earlier illegal move is named first, as with house 7.
        (
            r#"{"moves": [3, 3, 256]}"#,
            "move 2 ('3') of 'moves': house 3 is empty",
        ),
        (
            r#"{"moves": [3, 3, 7]}"#,
            "move 2 ('3') of 'moves': house 3 is empty",
        ),
    ];
    for (body, msg) in games {
        let a = send(&app, "POST", "/api/legal", *body).await;
        let status = if msg.contains("not a move") {
            // Not plain digits: not a move at all, as before.
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::UNPROCESSABLE_ENTITY
        };
        assert_error(&a, status, &[msg]);
    }
    // A value of another type stays a 400.
    for mv in [json!(true), json!({}), json!([3])] {
        assert_error(
            &post(&app, "/api/play", json!({ "move": mv })).await,
            StatusCode::BAD_REQUEST,
            &["field 'move' must be a house number or a string"],
        );
        assert_error(
            &post(&app, "/api/legal", json!({ "moves": [mv] })).await,
            StatusCode::BAD_REQUEST,
            &["'moves' item 1 must be a house number or a string"],
        );
    }
    // A JSON number is a house by its value, as whole-number fields are: 3.0 is house 3.
    for mv in ["3", "3.0", "3e0", "\"3\""] {
        let a = send(&app, "POST", "/api/play", format!(r#"{{"move": {mv}}}"#)).await;
        assert_eq!(a.status, StatusCode::OK, "{mv}: {}", a.text);
        assert_eq!(a.body["move"], "3", "{mv}");
        let a = send(
            &app,
            "POST",
            "/api/legal",
            format!(r#"{{"moves": [{mv}]}}"#),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{mv}: {}", a.text);
        assert_eq!(a.body["position"], "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S", "{mv}");
    }
}

/// Whole-number fields take any JSON number whose value is whole, however written (6.0, 1e0):
/// the same answer as 6 (tester: "field 'houses' must be 1 to 12, not 6.0").
#[tokio::test]
async fn whole_number_fields_take_whole_numbers_however_written() {
    let app = app();
    let plain = post(&app, "/api/legal", json!({"houses": 6, "seeds": 4})).await;
    assert_eq!(plain.status, StatusCode::OK, "{}", plain.text);
    for body in [
        r#"{"houses": 6.0, "seeds": 4.0}"#,
        r#"{"houses": 6e0, "seeds": 0.4e1}"#,
        r#"{"houses": 60e-1, "seeds": 4}"#,
        r#"{"layout": [4.0, 4, 4e0, 40e-1, 4, 4], "houses": 6.0}"#,
    ] {
        let a = send(&app, "POST", "/api/legal", body).await;
        assert_eq!(a.status, StatusCode::OK, "{body}: {}", a.text);
        assert_eq!(a.body, plain.body, "{body}");
    }
    // A whole number sent with an exponent or a fraction is quoted as a whole number (tester
    // 41: 1e3 was quoted '1000.0'), -0 as '-0' (tester 20: it was written '-0.0'); others as
    // serde_json writes them.
    for (sent, shown) in [
        ("1e3", "1000"),
        ("13.0", "13"),
        ("2.5", "2.5"),
        ("1e300", "1e+300"),
        ("-0", "-0"),
        ("-0.0", "-0"),
    ] {
        assert_error(
            &send(
                &app,
                "POST",
                "/api/legal",
                &format!(r#"{{"houses": {sent}}}"#),
            )
            .await,
            StatusCode::UNPROCESSABLE_ENTITY,
            &[&format!(
                "field 'houses' must be a whole number from 1 to 12, not {shown}"
            )],
        );
    }
    // The engine's seed and thinking time too: seed 7.0 is seed 7.
    let ask = |seed: &str, time: &str| {
        format!(
            r#"{{"houses": 4, "seeds": 2, "level": "beginner", "seed": {seed}, "time_ms": {time}}}"#
        )
    };
    let a = send(&app, "POST", "/api/engine", ask("7", "100")).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    for (seed, time) in [("7.0", "100.0"), ("7e0", "1e2"), ("0.7e1", "100")] {
        let b = send(&app, "POST", "/api/engine", ask(seed, time)).await;
        assert_eq!(b.status, StatusCode::OK, "{seed} {time}: {}", b.text);
        assert_eq!(b.body["move"], a.body["move"], "{seed} {time}");
    }
    // A number that is not whole is out of range, in the field's one wording.
    for (body, msg) in [
        (
            r#"{"houses": 6.5}"#,
            "field 'houses' must be a whole number from 1 to 12, not 6.5",
        ),
        (
            r#"{"seeds": 4.5}"#,
            "field 'seeds' must be a whole number from 1 to 21",
        ),
        (
            r#"{"layout": [4, 4.5]}"#,
            "'layout' item 2: 4.5 is not a seed count (0 to 255)",
        ),
        (
            r#"{"layout": [4, 1e10]}"#,
            "'layout' item 2: 10000000000 is not a seed count (0 to 255)",
        ),
    ] {
        assert_error(
            &send(&app, "POST", "/api/legal", body).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            &[msg],
        );
    }
    for (body, msg) in [
        (r#"{"time_ms": 0.5}"#, "field 'time_ms' must be a whole number from 1 to 500 ms (longer times are cut to 500), not 0.5"),
        (r#"{"seed": 1.5}"#, "field 'seed' must be a whole number from 0 to 18446744073709551615, not 1.5"),
    ] {
        assert_error(&send(&app, "POST", "/api/engine", body).await, StatusCode::UNPROCESSABLE_ENTITY, &[msg]);
    }
}

/// Every out-of-range value of a field gets the field's one message, naming the real range
/// (tester: "field 'houses' must be ..." for -1 but "'houses' must be ..." for 0; "seeds must
/// be a whole number 0 or more" for -1 though 0 was refused).
#[tokio::test]
async fn out_of_range_values_get_one_message_a_field_with_the_real_range() {
    let app = app();
    for houses in ["-1", "0", "13", "2.5", "1e3", "18446744073709551616"] {
        let a = send(
            &app,
            "POST",
            "/api/legal",
            format!(r#"{{"houses": {houses}}}"#),
        )
        .await;
        assert_error(
            &a,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["field 'houses' must be a whole number from 1 to 12, not "],
        );
    }
    // Seeds a house: at least 1, and at most 255 on the whole board.
    for (houses, most) in [(6, 21), (12, 10), (4, 31)] {
        for seeds in ["-1", "0", "1.5", &(most + 1).to_string(), "1e9"] {
            let a = send(
                &app,
                "POST",
                "/api/legal",
                format!(r#"{{"houses": {houses}, "seeds": {seeds}}}"#),
            )
            .await;
            assert_error(
                &a,
                StatusCode::UNPROCESSABLE_ENTITY,
                &[&format!(
                    "field 'seeds' must be a whole number from 1 to {most} with {houses} houses a side (the board holds at most 255 seeds), not "
                )],
            );
        }
        let a = post(&app, "/api/legal", json!({"houses": houses, "seeds": most})).await;
        assert_eq!(a.status, StatusCode::OK, "{houses} {most}: {}", a.text);
    }
    assert_error(
        &post(&app, "/api/legal", json!({"houses": 1, "seeds": 0})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["field 'seeds' must be a whole number from 1 to 127 with 1 house a side (the board holds at most 255 seeds), not 0"],
    );
    for seed in ["-1", "18446744073709551616", "2e19"] {
        let a = send(
            &app,
            "POST",
            "/api/engine",
            format!(r#"{{"seed": {seed}}}"#),
        )
        .await;
        assert_error(
            &a,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["field 'seed' must be a whole number from 0 to 18446744073709551615, not "],
        );
    }
    // Another type stays a 400.
    for field in ["houses", "seeds", "time_ms", "seed"] {
        let a = post(&app, "/api/engine", json!({ field: "6" })).await;
        assert_error(
            &a,
            StatusCode::BAD_REQUEST,
            &[&format!("field '{field}' must be a number, not a string")],
        );
    }
}

/// A thinking time of 1 ms or more is cut to the server's maximum however large, also past
/// u64 (tester: 18446744073709551615 was cut but 18446744073709551616 and 1e19 refused).
#[tokio::test]
async fn any_thinking_time_from_1_ms_is_cut_to_the_maximum() {
    let app = app(); // max 500 ms
    for time in [
        "18446744073709551615",
        "18446744073709551616",
        "1e19",
        "1e300",
        "600000.0",
    ] {
        for path in ["/api/engine", "/api/analyze"] {
            let started = std::time::Instant::now();
            let a = send(
                &app,
                "POST",
                path,
                format!(r#"{{"houses": 2, "seeds": 1, "time_ms": {time}}}"#),
            )
            .await;
            assert_eq!(a.status, StatusCode::OK, "{path} {time}: {}", a.text);
            assert!(started.elapsed() < Duration::from_secs(5), "{path} {time}");
        }
    }
    for time in ["0", "-1", "-1e19", "0.5", "1.5"] {
        let a = send(
            &app,
            "POST",
            "/api/analyze",
            format!(r#"{{"time_ms": {time}}}"#),
        )
        .await;
        assert_error(
            &a,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["field 'time_ms' must be a whole number from 1 to 500 ms (longer times are cut to 500), not "],
        );
    }
    assert_error(
        &post(&app, "/api/analyze", json!({"time_ms": true})).await,
        StatusCode::BAD_REQUEST,
        &["field 'time_ms' must be a number, not a boolean"],
    );
}

// --- Node limits ------------------------------------------------------------------------------

/// Nodes between two checks of a search's node count (kalah-solver's `SearchLimits::nodes`): a
/// search stops at its first check at or past its limit.
const NODE_CHECK: u64 = 1024;

/// A server whose time limits never end a search of these tests before its node limit (10 s),
/// with a default time of 1 ms: a node limit alone must not fall back to it.
fn node_app() -> Router {
    router(Config {
        default_time: Duration::from_millis(1),
        max_time: Duration::from_secs(10),
        ..config()
    })
}

/// `nodes` is read as `time_ms` is: another type is a 400, a number that is not a whole one
/// from 1 to the server's maximum (`max_nodes`, 1 000 000 here) a 422, each naming the field;
/// unlike `time_ms`, a node limit above the maximum is refused rather than cut, since a smaller
/// limit would give another answer.
#[tokio::test]
async fn bad_node_limits_are_refused_naming_the_field() {
    let app = app();
    for path in ["/api/engine", "/api/analyze"] {
        for nodes in [
            "0",
            "-0",
            "-1",
            "0.5",
            "1.5",
            "1000001",
            "1e7",
            "18446744073709551616",
            "1e300",
            "-1e19",
        ] {
            let a = send(&app, "POST", path, format!(r#"{{"nodes": {nodes}}}"#)).await;
            assert_error(
                &a,
                StatusCode::UNPROCESSABLE_ENTITY,
                &["field 'nodes' must be a whole number from 1 to 1000000, not "],
            );
        }
        for (nodes, kind) in [
            (json!("1000"), "a string"),
            (json!(true), "a boolean"),
            (json!([1000]), "an array"),
            (json!({"n": 1000}), "an object"),
        ] {
            assert_error(
                &post(&app, path, json!({ "nodes": nodes })).await,
                StatusCode::BAD_REQUEST,
                &[&format!("field 'nodes' must be a number, not {kind}")],
            );
        }
        // A type is checked before any value; the game's values, then time_ms, before nodes.
        assert_error(
            &post(&app, path, json!({"time_ms": 0, "nodes": "x"})).await,
            StatusCode::BAD_REQUEST,
            &["field 'nodes' must be a number, not a string"],
        );
        assert_error(
            &post(&app, path, json!({"moves": [7], "nodes": 0})).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["there is no house 7"],
        );
        assert_error(
            &post(&app, path, json!({"time_ms": 0, "nodes": 0})).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            &["field 'time_ms'"],
        );
        // The bounds themselves are taken; null is a node limit left out.
        for nodes in [json!(1), json!(1_000_000), json!(1e6), Value::Null] {
            let a = post(&app, path, json!({"houses": 2, "seeds": 1, "nodes": nodes})).await;
            assert_eq!(a.status, StatusCode::OK, "{path} {nodes}: {}", a.text);
        }
    }
    // An unknown field's list names it.
    assert_error(
        &post(&app, "/api/analyze", json!({"node": 5})).await,
        StatusCode::BAD_REQUEST,
        &["unknown field 'node'", "nodes"],
    );
}

/// What a node-limited engine answer must repeat.
fn engine_answer(a: &Answer) -> Value {
    let b = &a.body;
    json!([
        b["move"],
        b["value"],
        b["exact"],
        b["depth"],
        b["nodes"],
        b["pv"],
        b["position"]
    ])
}

/// With a node limit, `/api/engine` answers the same request the same way (move, value, depth,
/// nodes, line), each request having a fresh engine and table; the limit binds (at Kalah(6,4)'s
/// start `hard` searches 44 859 nodes to its depth 12, `perfect` and `expert` far more), and
/// the nodes reported pass it by less than one check's worth: `perfect` by two, its exact
/// attempt and the search after it.
#[tokio::test]
async fn a_node_limited_engine_move_repeats_and_keeps_to_the_limit() {
    let app = node_app();
    for (level, limit, checks) in [
        ("hard", 20_000, 1),
        ("hard", 5_000, 1),
        ("expert", 20_000, 1),
        ("perfect", 20_000, 2),
    ] {
        let ask = json!({"level": level, "nodes": limit});
        let first = post(&app, "/api/engine", ask.clone()).await;
        assert_eq!(first.status, StatusCode::OK, "{level}: {}", first.text);
        let nodes = first.body["nodes"].as_u64().unwrap();
        assert!(
            nodes >= limit && nodes <= limit + checks * NODE_CHECK,
            "{level} {limit}: {nodes} nodes"
        );
        assert_eq!(first.body["exact"], false, "{level}: {}", first.text);
        if level == "hard" {
            assert!(first.body["depth"].as_u64().unwrap() < 12, "{}", first.text);
        }
        for _ in 0..2 {
            let again = post(&app, "/api/engine", ask.clone()).await;
            assert_eq!(
                engine_answer(&again),
                engine_answer(&first),
                "{level} {limit}"
            );
        }
    }
    // A seeded lower level repeats too.
    let ask = json!({"level": "easy", "nodes": 500, "seed": 3, "moves": "3-6"});
    let first = post(&app, "/api/engine", ask.clone()).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    assert_eq!(
        engine_answer(&post(&app, "/api/engine", ask).await),
        engine_answer(&first)
    );
}

/// Both limits apply, whichever comes first, as `kalah play --move-time-ms --move-nodes`; a
/// node limit alone thinks up to the server's maximum time, not its default one (1 ms here).
#[tokio::test]
async fn time_and_node_limits_both_apply() {
    let app = node_app();
    // The node limit first.
    let a = post(
        &app,
        "/api/engine",
        json!({"level": "expert", "time_ms": 10_000, "nodes": 5_000}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let nodes = a.body["nodes"].as_u64().unwrap();
    assert!((5_000..=5_000 + NODE_CHECK).contains(&nodes), "{nodes}");
    assert!(a.body["time_ms"].as_u64().unwrap() < 5_000, "{}", a.text);
    // The time first: `expert` deepens until a limit stops it.
    let started = std::time::Instant::now();
    let a = post(
        &app,
        "/api/engine",
        json!({"level": "expert", "time_ms": 20, "nodes": 1_000_000}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert!(a.body["nodes"].as_u64().unwrap() < 1_000_000, "{}", a.text);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // A node limit alone: not cut at the default 1 ms.
    for path in ["/api/engine", "/api/analyze"] {
        let a = post(&app, path, json!({"level": "expert", "nodes": 200_000})).await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.text);
        assert!(
            a.body["nodes"].as_u64().unwrap() >= 200_000,
            "{path}: {}",
            a.text
        );
    }
}

/// What a node-limited analysis must repeat.
fn analysis(a: &Answer) -> Value {
    let b = &a.body;
    json!([b["value"], b["exact"], b["moves"], b["best"], b["nodes"]])
}

/// With a node limit, `/api/analyze` answers the same request the same way, and reports its
/// nodes: at Kalah(6,4)'s start the exact attempt stops at the limit (`n`), then the estimates
/// search `n` more, shared among the 6 moves, each search passing its limit by less than one
/// check's worth; a position proven within the limit reports the proof's nodes.
#[tokio::test]
async fn a_node_limited_analysis_repeats_and_keeps_to_the_limit() {
    let app = node_app();
    let limit = 20_000;
    let ask = json!({"nodes": limit});
    let first = post(&app, "/api/analyze", ask.clone()).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    assert_eq!(first.body["exact"], false, "{}", first.text);
    let nodes = first.body["nodes"].as_u64().unwrap();
    assert!(
        nodes > limit && nodes <= 2 * limit + 7 * NODE_CHECK,
        "{nodes} nodes"
    );
    for _ in 0..2 {
        let again = post(&app, "/api/analyze", ask.clone()).await;
        assert_eq!(analysis(&again), analysis(&first));
    }
    // Proven within the limit (Kalah(4,2) takes about 27 000 nodes): the values, and the
    // proof's nodes.
    let limit = 100_000;
    let ask = json!({"houses": 4, "seeds": 2, "nodes": limit});
    let first = post(&app, "/api/analyze", ask.clone()).await;
    assert_eq!(first.body["exact"], true, "{}", first.text);
    let nodes = first.body["nodes"].as_u64().unwrap();
    assert!(nodes > 0 && nodes <= limit, "{nodes} nodes");
    assert_eq!(
        analysis(&post(&app, "/api/analyze", ask).await),
        analysis(&first)
    );
    // A finished game: no search.
    let a = post(
        &app,
        "/api/analyze",
        json!({"position": "0,0,3,1,2,4 S", "nodes": 10}),
    )
    .await;
    assert_eq!(a.body["nodes"], 0, "{}", a.text);
}

// --- Slow and oversized requests over a real listener ------------------------------------------

mod wire {
    use super::*;
    use std::net::SocketAddr;
    use std::time::Instant;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    pub(super) struct Server {
        pub(super) addr: SocketAddr,
        stop: Option<tokio::sync::oneshot::Sender<()>>,
        task: tokio::task::JoinHandle<std::io::Result<()>>,
    }

    impl Server {
        pub(super) async fn start(config: Config) -> Server {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            let task = tokio::spawn(kalah_web::serve(listener, config, async {
                let _ = rx.await;
            }));
            Server {
                addr,
                stop: Some(tx),
                task,
            }
        }

        pub(super) async fn stop(mut self) {
            self.stop.take().unwrap().send(()).unwrap();
            tokio::time::timeout(Duration::from_secs(10), self.task)
                .await
                .expect("shuts down")
                .unwrap()
                .unwrap();
        }
    }

    /// Reads one answer (head and `content-length` bytes of body), or up to the end of the
    /// stream; `None` if the server closed the connection without answering. Fails the test
    /// if nothing happens within `limit`.
    pub(super) async fn read_answer(s: &mut TcpStream, limit: Duration) -> Option<String> {
        let mut buf = Vec::new();
        let read = async {
            let mut chunk = [0u8; 4096];
            loop {
                let n = s.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_lowercase();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text[..end]
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        break;
                    }
                }
            }
        };
        tokio::time::timeout(limit, read)
            .await
            .expect("the server neither answered nor closed the connection in time");
        (!buf.is_empty()).then(|| String::from_utf8_lossy(&buf).into_owned())
    }

    /// Sends `POST path` with `body` on the connection `s` (kept alive) and reads its answer.
    pub(super) async fn post_on(s: &mut TcpStream, path: &str, body: &str) -> String {
        let req = request_text(s.peer_addr().unwrap(), "POST", path, body, false);
        s.write_all(req.as_bytes()).await.unwrap();
        read_answer(s, Duration::from_secs(10))
            .await
            .expect("an answer")
    }

    fn short() -> Config {
        Config {
            read_timeout: Duration::from_millis(300),
            max_time: Duration::from_millis(1500),
            ..config()
        }
    }

    /// Regression (tester 34): a 404 or 405 answered before the body arrived closed the
    /// kept-alive connection (without saying so), so the client's next request failed. The
    /// body is now read first.
    #[tokio::test]
    async fn a_404_or_405_keeps_the_connection_for_the_next_request() {
        let server = Server::start(config()).await;
        for (head, status) in [
            ("POST /api/nope", "404"),
            ("POST /api/info", "405"),
            ("POST /assets/app.js", "405"),
        ] {
            let mut s = TcpStream::connect(server.addr).await.unwrap();
            s.write_all(
                format!("{head} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n").as_bytes(),
            )
            .await
            .unwrap();
            tokio::time::sleep(Duration::from_millis(50)).await;
            s.write_all(b"{}").await.unwrap();
            let answer = read_answer(&mut s, Duration::from_secs(5))
                .await
                .expect("an answer");
            assert!(
                answer.starts_with(&format!("HTTP/1.1 {status}")),
                "{answer}"
            );
            let next = post_on(&mut s, "/api/legal", "{}").await;
            assert!(next.starts_with("HTTP/1.1 200"), "{head}: {next}");
        }
        // A name that is not UTF-8 once decoded is a JSON 404 like any other.
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        s.write_all(b"GET /assets/%ff HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let answer = read_answer(&mut s, Duration::from_secs(5))
            .await
            .expect("an answer");
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
        assert!(answer.contains(r#"{"error":"no such asset"#), "{answer}");
        server.stop().await;
    }

    /// A body sent in many small pieces is read whole and answered as one sent at once (the
    /// server copies each piece out as it arrives: tester 34 saw 240 MB for a 64 KiB body sent
    /// a byte at a time).
    #[tokio::test]
    async fn a_body_trickled_in_small_pieces_is_read_whole() {
        let server = Server::start(config()).await;
        let body = format!(r#"{{"moves": "{}3"}}"#, " ".repeat(600));
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        s.set_nodelay(true).unwrap();
        s.write_all(
            format!(
                "POST /api/legal HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .unwrap();
        for piece in body.as_bytes().chunks(3) {
            s.write_all(piece).await.unwrap();
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        let answer = read_answer(&mut s, Duration::from_secs(10))
            .await
            .expect("an answer");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            answer.contains(r#""to_move":"S""#),
            "after 3, South's extra turn: {answer}"
        );
        server.stop().await;
    }

    /// Regression (tester 34): a client that sent many requests and never read the answers held
    /// its connection, and the shutdown, for ever. A write that cannot go on for the read
    /// timeout now closes the connection.
    #[tokio::test]
    async fn a_client_that_never_reads_is_cut_off_and_does_not_hold_the_shutdown() {
        let server = Server::start(short()).await; // read timeout 300 ms
        let s = tokio::net::TcpSocket::new_v4().unwrap();
        s.set_recv_buffer_size(2048).unwrap();
        let mut s = s.connect(server.addr).await.unwrap();
        let many = "GET /assets/app.js HTTP/1.1\r\nHost: x\r\n\r\n".repeat(400);
        s.write_all(many.as_bytes()).await.unwrap();
        let t0 = Instant::now();
        // The shutdown waits for that connection at most until its write times out.
        server.stop().await;
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    }

    #[tokio::test]
    async fn a_declared_body_over_the_limit_is_refused_before_it_is_sent() {
        let server = Server::start(config()).await; // 4096 bytes, read timeout 20 s
        for declared in ["4097", "99999999999"] {
            let mut s = TcpStream::connect(server.addr).await.unwrap();
            let head = format!(
                "POST /api/legal HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {declared}\r\n\r\n{{}}"
            );
            s.write_all(head.as_bytes()).await.unwrap();
            // The body is never completed: the answer must not wait for it.
            let answer = read_answer(&mut s, Duration::from_secs(5))
                .await
                .expect("an answer");
            assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
            assert!(
                answer.contains(
                    r#"{"error":"the request body is larger than the limit of 4096 bytes"}"#
                ),
                "{answer}"
            );
        }
        // A declared length within the limit is served as before.
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        let answer = post_on(&mut s, "/api/legal", "{}").await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        server.stop().await;
    }

    #[tokio::test]
    async fn connections_that_send_no_whole_request_head_are_closed() {
        let server = Server::start(short()).await;
        // Nothing at all.
        let started = Instant::now();
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        assert_eq!(read_answer(&mut s, Duration::from_secs(5)).await, None);
        assert!(
            started.elapsed() >= Duration::from_millis(250),
            "{:?}",
            started.elapsed()
        );
        // Half a head, then silence.
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        s.write_all(b"POST /api/legal HTTP/1.1\r\nHost: x\r\n")
            .await
            .unwrap();
        assert_eq!(read_answer(&mut s, Duration::from_secs(5)).await, None);
        // A head trickled a byte at a time: the limit is on the whole head, not between bytes.
        let started = Instant::now();
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        let head = b"POST /api/legal HTTP/1.1\r\nHost: x\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
        let mut closed = false;
        for b in head {
            if s.write_all(&[*b]).await.is_err() {
                closed = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            if started.elapsed() > Duration::from_secs(3) {
                break;
            }
        }
        if !closed {
            closed = read_answer(&mut s, Duration::from_secs(5)).await.is_none();
        }
        assert!(closed, "a trickled head was served");
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{:?}",
            started.elapsed()
        );
        // An idle kept-alive connection is closed too, after its answer.
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        let answer = post_on(&mut s, "/api/legal", "{}").await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert_eq!(read_answer(&mut s, Duration::from_secs(5)).await, None);
        server.stop().await;
    }

    #[tokio::test]
    async fn a_body_that_does_not_arrive_in_time_gets_408() {
        let server = Server::start(short()).await;
        let started = Instant::now();
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        s.write_all(b"POST /api/legal HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"mo")
            .await
            .unwrap();
        let answer = read_answer(&mut s, Duration::from_secs(5)).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(
            answer.to_lowercase().contains("connection: close"),
            "{answer}"
        );
        assert!(
            answer.contains(r#"{"error":"the request body did not arrive within 300 ms"}"#),
            "{answer}"
        );
        assert!(
            started.elapsed() >= Duration::from_millis(250),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(read_answer(&mut s, Duration::from_secs(5)).await, None);
        server.stop().await;
    }

    #[tokio::test]
    async fn a_long_search_is_not_cut_by_the_read_timeout() {
        let server = Server::start(short()).await; // read timeout 300 ms
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        let body = r#"{"houses": 12, "seeds": 6, "level": "perfect", "time_ms": 1000}"#;
        let started = Instant::now();
        let answer = post_on(&mut s, "/api/engine", body).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            started.elapsed() >= Duration::from_millis(900),
            "{:?}",
            started.elapsed()
        );
        let json: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert!(json["time_ms"].as_u64().unwrap() >= 900, "{json}");
        // The connection still serves the next request.
        let answer = post_on(&mut s, "/api/play", r#"{"move": 3}"#).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        server.stop().await;
    }
}

/// The `moves` string reads items as `kalah show --moves` does: spaces and/or commas separate
/// them, `-` joins the actions of one turn (tester 13: `"3,6,1"` was read as the one turn
/// 3-6-1 and refused, though `kalah show --moves 3,6,1` plays it).
#[tokio::test]
async fn the_moves_string_takes_commas_between_items_as_show_does() {
    let app = app();
    let want = post(&app, "/api/legal", json!({"moves": [3, 6, 1]})).await;
    assert_eq!(want.status, StatusCode::OK, "{}", want.text);
    assert_eq!(
        want.body["position"], "4,4,0,5,5,0,2,0,6,6,6,5,5,0 S",
        "the position kalah show --moves 3,6,1 gives"
    );
    for text in ["3,6,1", "3-6,1", "3-6 1", "3, 6, 1", " 3 6,1 ", "3-,6 1"] {
        let a = post(&app, "/api/legal", json!({ "moves": text })).await;
        assert_eq!(a.status, StatusCode::OK, "{text}: {}", a.text);
        assert_eq!(a.body["position"], want.body["position"], "{text}");
    }
    for text in ["", "  "] {
        let a = post(&app, "/api/legal", json!({ "moves": text })).await;
        assert_eq!(
            a.body["position"], "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S",
            "{text:?}"
        );
    }
    // A turn text still stays within its turn; an empty item is a slip.
    assert_error(
        &post(&app, "/api/legal", json!({"moves": "3-6-1"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["'3-6-1' goes on after action 2 (house 6)"],
    );
    for text in ["3,,6", "3,6,", ",3"] {
        assert_error(
            &post(&app, "/api/legal", json!({ "moves": text })).await,
            StatusCode::BAD_REQUEST,
            &["an empty item", "\"3-6,2\""],
        );
    }
}

/// An unknown field is named before any other field is checked (tester 13: `{"houses": 13,
/// "colour": 1}` was told about the houses, and a misspelt field hid behind a bad move).
#[tokio::test]
async fn an_unknown_field_is_named_first() {
    let app = app();
    for (path, body) in [
        ("/api/legal", json!({"houses": 13, "colour": 1})),
        ("/api/legal", json!({"houses": 4, "moves": [5], "seed": 1})),
        ("/api/play", json!({"moves": [7], "mvoe": 3})),
    ] {
        let a = post(&app, path, body.clone()).await;
        assert_error(&a, StatusCode::BAD_REQUEST, &["unknown field"]);
    }
}

/// The rules object is read as the text form is: the same values and messages, and a value of
/// another type names its key (tester 13).
#[tokio::test]
async fn the_rules_object_takes_what_the_rules_text_takes() {
    let app = app();
    let a = post(
        &app,
        "/api/legal",
        json!({"rules": {"capture": "empty", "pie": true, "majority-end": false, "end": null}}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let b = post(&app, "/api/legal", json!({"rules": "capture=empty pie=on"})).await;
    assert_eq!(a.body, b.body);
    for (rules, words) in [
        (
            json!({"pie": 1}),
            &["key 'pie' must be a string or true/false, not a number"][..],
        ),
        (json!({"capture": 1}), &["key 'capture'", "not a number"]),
        (
            json!({"capture": {"empty": null}}),
            &["key 'capture'", "not an object"],
        ),
        (
            json!({"capture": "sometimes"}),
            &["'sometimes' is not a value of capture"],
        ),
        (
            json!({"capture": "empty pie=on"}),
            &["'empty pie=on' is not a value of capture"],
        ),
        // Quoted as sent, not as the text form's 'on' (tester 41).
        (
            json!({"capture": true}),
            &["'true' is not a value of capture: expected"],
        ),
        (json!({"end": false}), &["'false' is not a value of end"]),
        (json!({"colour": "red"}), &["colour"]),
    ] {
        let a = post(&app, "/api/legal", json!({ "rules": rules })).await;
        assert_error(&a, StatusCode::BAD_REQUEST, words);
        assert!(
            a.body["error"]
                .as_str()
                .unwrap()
                .starts_with("field 'rules': "),
            "{}",
            a.text
        );
    }
}

/// An empty action in a turn text is named as such, as `kalah show --moves` names it (tester
/// 13: "'' is not a move").
#[tokio::test]
async fn an_empty_action_in_a_turn_text_is_named() {
    let app = app();
    for (body, what) in [
        (json!({"move": "-3"}), "field 'move' ('-3')"),
        (json!({"move": "3--6"}), "field 'move' ('3--6')"),
        (json!({"move": "-"}), "field 'move' ('-')"),
        (json!({"moves": "3 -6", "move": 1}), "'moves' item 2 ('-6')"),
    ] {
        assert_error(
            &post(&app, "/api/play", body.clone()).await,
            StatusCode::BAD_REQUEST,
            &[
                what,
                "an empty action; join the actions of one turn with single dashes",
            ],
        );
    }
}

/// Every malformed field, the endpoint's own ones included, is named before any impossible
/// value of the game (tester 13: a bad `move`, `level`, `seed` or `south` came after the 422 of
/// a bad move in `moves`).
#[tokio::test]
async fn malformed_fields_are_named_before_impossible_values() {
    let app = app();
    for (path, body, words) in [
        (
            "/api/play",
            json!({"moves": [7], "move": true}),
            &["field 'move' must be"][..],
        ),
        (
            "/api/play",
            json!({"moves": [7], "move": "+3"}),
            &["'+3' is not a move"],
        ),
        (
            "/api/engine",
            json!({"moves": [7], "level": "grandmaster"}),
            &["unknown level 'grandmaster'"],
        ),
        (
            "/api/engine",
            json!({"moves": [7], "time_ms": "x"}),
            &["field 'time_ms' must be a number"],
        ),
        (
            "/api/engine",
            json!({"time_ms": 0, "seed": "x"}),
            &["field 'seed' must be a number"],
        ),
        (
            "/api/analyze",
            json!({"houses": 13, "time_ms": "x"}),
            &["field 'time_ms' must be a number"],
        ),
        (
            "/api/record/export",
            json!({"moves": [7], "south": 5}),
            &["field 'south' must be a string"],
        ),
    ] {
        assert_error(
            &post(&app, path, body.clone()).await,
            StatusCode::BAD_REQUEST,
            words,
        );
    }
    // Then the values: the game's, then the endpoint's own.
    assert_error(
        &post(&app, "/api/engine", json!({"moves": [7], "time_ms": 0})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["there is no house 7"],
    );
    assert_error(
        &post(&app, "/api/engine", json!({"time_ms": 0, "seed": -1})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        &["field 'time_ms' must be a whole number from 1 to"],
    );
}

#[tokio::test]
async fn errors_quote_long_input_shortened() {
    // Tester 74: a 60 000-digit move came back whole, twice, in the error (this server's
    // bodies are at most 4 KiB).
    let app = app();
    let digits = "1".repeat(3_000);
    for (body, status, words) in [
        (
            json!({"move": digits}),
            StatusCode::UNPROCESSABLE_ENTITY,
            &["there is no house 1111", "(3000 characters)"][..],
        ),
        (
            json!({"move": format!("3-{digits}")}),
            StatusCode::UNPROCESSABLE_ENTITY,
            &["(3002 characters)"][..],
        ),
        (
            json!({"move": "x".repeat(3_000)}),
            StatusCode::BAD_REQUEST,
            &["(3000 characters)"][..],
        ),
        (
            json!({"move": 3, "position": format!("4,4,4,{digits} S")}),
            StatusCode::UNPROCESSABLE_ENTITY,
            &["(3000 characters)"][..],
        ),
        (
            json!({"move": 3, "rules": format!("capture={digits}")}),
            StatusCode::BAD_REQUEST,
            &["(3000 characters)"][..],
        ),
    ] {
        let a = post(&app, "/api/play", body).await;
        assert_error(&a, status, words);
        assert!(a.text.len() < 1_100, "{} bytes: {}", a.text.len(), a.text);
    }
}

#[tokio::test]
async fn the_engine_gives_its_pv_in_whole_turns_too() {
    // Tester 74: `pv` lists single actions, so a bot could not tell where turns end.
    use kalah_core::{Move, Position, Rules};
    let app = app();
    let mut several = 0;
    for (body, start) in [
        (
            json!({"houses": 4, "seeds": 3, "level": "perfect"}),
            "3,3,3,3,0,3,3,3,3,0 S",
        ),
        (
            json!({"houses": 3, "seeds": 3, "level": "expert", "moves": [1]}),
            "3,3,3,0,3,3,3,0 S",
        ),
        (
            json!({"position": "1,2,0,3,0,2,1,0,0,1,2,5 N", "level": "perfect"}),
            "1,2,0,3,0,2,1,0,0,1,2,5 N",
        ),
    ] {
        let a = post(&app, "/api/engine", body.clone()).await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.text);
        let pv: Vec<String> = serde_json::from_value(a.body["pv"].clone()).unwrap();
        let turns: Vec<String> = serde_json::from_value(a.body["pv_turns"].clone()).unwrap();
        assert!(!pv.is_empty(), "{}", a.text);
        // The same actions, in order.
        let flat: Vec<&str> = turns
            .iter()
            .flat_map(|t| t.split('-').filter(|x| !x.is_empty()))
            .collect();
        assert_eq!(flat, pv, "{body}");
        // Each item is one player's actions up to the end of his turn (a last one left
        // open ends in '-'), replayed from the request's position.
        let rules = Rules::default();
        let mut p: Position = start.parse().unwrap();
        if let Some(moves) = body.get("moves") {
            for m in moves.as_array().unwrap() {
                p.play(&rules, Move::Sow(m.as_u64().unwrap() as u8))
                    .unwrap();
            }
        }
        for (i, t) in turns.iter().enumerate() {
            let open = t.ends_with('-');
            assert!(!open || i + 1 == turns.len(), "{turns:?}");
            let acts: Vec<&str> = t.trim_end_matches('-').split('-').collect();
            let mover = p.to_move();
            for (k, act) in acts.iter().enumerate() {
                assert_eq!(p.to_move(), mover, "{turns:?}");
                let o = p.play(&rules, act.parse().unwrap()).unwrap();
                let goes_on = o.extra_turn && o.ended.is_none();
                assert_eq!(goes_on, k + 1 < acts.len() || open, "{turns:?} item {i}");
            }
        }
        if turns.iter().any(|t| t.trim_end_matches('-').contains('-')) {
            several += 1;
        }
    }
    assert!(several > 0, "some variation has a turn of several actions");
}

// ---- POST /api/review ------------------------------------------------------------------------

/// A game of Kalah(2,1) from 1,1,0,1,1,0 S, checked by hand (as in the CLI's `kalah review`
/// tests): South's 1 is worth -2 where 2-1 (house 2 into the store, then house 1 into the empty
/// house 2, capturing North's house 1) wins by 2: 4 seeds lost, a win turned into a loss;
/// North's 1 is a best turn (+2), and South's forced 2 as well.
#[tokio::test]
async fn review_values_every_turn_against_the_best_turn() {
    let app = app();
    let a = post(
        &app,
        "/api/review",
        json!({"position": "1,1,0,1,1,0 S", "houses": null, "moves": [1, 1, 2]}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let v = &a.body;
    assert_eq!(v["start"], "1,1,0,1,1,0 S");
    assert_eq!(
        (v["complete"].clone(), v["exact"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(v["game_turns"], 3);
    // The server's maximum time (500 ms here) when `time_ms` is left out.
    assert_eq!(v["time_limit_ms"], 500);
    let t = v["turns"].as_array().unwrap();
    assert_eq!(t.len(), 3);
    let first = &t[0];
    for (key, want) in [
        ("turn", json!(1)),
        ("side", json!("S")),
        ("player", json!("S")),
        ("position", json!("1,1,0,1,1,0 S")),
        ("played", json!("1")),
        ("open", json!(false)),
        ("value", json!(-2)),
        ("best", json!("2-1")),
        ("best_value", json!(2)),
        ("loss", json!(4)),
        ("outcome_change", json!(["win", "loss"])),
    ] {
        assert_eq!(first[key], want, "turn 1 {key}: {first}");
    }
    assert!(first.get("value_bounds").is_none() && first.get("least_loss").is_none());
    assert_eq!(
        (
            t[1]["side"].clone(),
            t[1]["position"].clone(),
            t[1]["value"].clone(),
            t[1]["loss"].clone()
        ),
        (json!("N"), json!("0,2,0,1,1,0 N"), json!(2), json!(0))
    );
    assert!(t[1].get("outcome_change").is_none());
    assert_eq!(
        (t[2]["turn"].clone(), t[2]["loss"].clone()),
        (json!(3), json!(0))
    );
    assert_eq!(
        v["players"],
        json!({
            "south": {"turns": 2, "mistakes": 1, "loss": 4, "unproven": 0, "outcome_changes": [1]},
            "north": {"turns": 1, "mistakes": 0, "loss": 0, "unproven": 0, "outcome_changes": []},
        })
    );
    assert!(v["nodes"].as_u64().unwrap() > 0);
    // The game given as a whole-turn text, or its start from houses and seeds, is the same game.
    for body in [
        json!({"position": "1,1,0,1,1,0 S", "moves": "1 1 2"}),
        json!({"houses": 2, "seeds": 1, "moves": ["1", "1", "2"]}),
    ] {
        let b = post(&app, "/api/review", body.clone()).await;
        assert_eq!(b.status, StatusCode::OK, "{body}: {}", b.text);
        assert_eq!(b.body["turns"], v["turns"], "{body}");
    }
    // A game that stops inside a turn: its last turn is open, valued as the position it reached
    // (South's 2 earns an extra turn: still South's best, +2).
    let b = post(
        &app,
        "/api/review",
        json!({"houses": 2, "seeds": 1, "moves": [2]}),
    )
    .await;
    assert_eq!(b.status, StatusCode::OK, "{}", b.text);
    let t = &b.body["turns"][0];
    assert_eq!(
        (
            t["played"].clone(),
            t["open"].clone(),
            t["value"].clone(),
            t["loss"].clone()
        ),
        (json!("2"), json!(true), json!(2), json!(0))
    );
    // No turn yet: nothing to review (and no engine slot taken).
    let busy = router(Config {
        engine_slots: 0,
        ..config()
    });
    let b = post(&busy, "/api/review", json!({"houses": 2, "seeds": 1})).await;
    assert_eq!(b.status, StatusCode::OK, "{}", b.text);
    assert_eq!(
        (
            b.body["turns"].clone(),
            b.body["complete"].clone(),
            b.body["game_turns"].clone()
        ),
        (json!([]), json!(true), json!(0))
    );
}

/// Under the pie rule each turn is put to the person who played it: after North's swap the
/// person who began as North plays South (`player` "N" on South's turns). Kalah(3,3): ann opens
/// 2, ben swaps (North's best there, +2: `kalah analyze --pie --houses 3 --seeds 3 --moves 2
/// --turns`), then ann plays North's 1 and ben South's 1.
#[tokio::test]
async fn a_review_puts_each_turn_to_its_player_after_a_swap() {
    let app = app();
    let a = post(
        &app,
        "/api/review",
        json!({"rules": "pie=on", "position": "3,3,3,0,3,3,3,0 S opening", "moves": "2 swap 1 1"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let who: Vec<(&str, &str)> = a.body["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["side"].as_str().unwrap(), t["player"].as_str().unwrap()))
        .collect();
    assert_eq!(who, vec![("S", "S"), ("N", "N"), ("N", "S"), ("S", "N")]);
    let swap = &a.body["turns"][1];
    assert_eq!(
        (
            swap["played"].clone(),
            swap["value"].clone(),
            swap["loss"].clone()
        ),
        (json!("swap"), json!(2), json!(0))
    );
    assert_eq!(a.body["players"]["south"]["turns"], 2);
    assert_eq!(a.body["players"]["north"]["turns"], 2);
    assert_eq!(a.body["complete"], true);
}

/// A game of Kalah(6,4) from the start, each side sowing its first house that can be sown,
/// until no more than `left` seeds are in the houses: its moves.
fn first_house_game(left: u32) -> Vec<String> {
    let rules = kalah_core::Rules::default();
    let mut pos = kalah_core::Position::start(&kalah_core::Start::uniform(6, 4).unwrap(), &rules);
    let mut moves = Vec::new();
    while !pos.is_over() && pos.seeds_in_houses() > left {
        let mv = pos.legal_moves(&rules)[0];
        pos.play(&rules, mv).unwrap();
        moves.push(mv.to_string());
    }
    moves
}

/// The whole review shares one time budget: the positions are solved from the game's end, so
/// a Kalah(6,4) game whose opening cannot be solved in 300 ms is answered within about that
/// time, its last turns reviewed, its first ones left out (`complete` false), the position
/// searched when the time ran out with bounds, if any.
#[tokio::test]
async fn a_time_limited_review_holds_the_last_turns() {
    let app = app();
    let moves = first_house_game(12);
    let started = std::time::Instant::now();
    let a = post(&app, "/api/review", json!({"moves": moves, "time_ms": 300})).await;
    let took = started.elapsed();
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let v = &a.body;
    assert!(took < Duration::from_millis(300 + 1200), "{took:?}");
    assert!(
        v["time_ms"].as_u64().unwrap() <= 300 + 1000,
        "{}",
        v["time_ms"]
    );
    assert_eq!(v["time_limit_ms"], 300);
    assert_eq!(v["complete"], false, "{}", a.text);
    let n = v["game_turns"].as_u64().unwrap();
    let turns = v["turns"].as_array().unwrap();
    assert!(
        !turns.is_empty() && (turns.len() as u64) < n,
        "{} of {n}",
        turns.len()
    );
    // The last turns, in order, up to the game's last.
    let numbers: Vec<u64> = turns.iter().map(|t| t["turn"].as_u64().unwrap()).collect();
    let first = numbers[0];
    assert!(first > 1);
    assert_eq!(numbers, (first..=n).collect::<Vec<_>>());
    // Each turn reviewed has its values, exact or between bounds.
    for t in turns {
        for (value, bounds) in [
            ("value", "value_bounds"),
            ("best_value", "best_value_bounds"),
        ] {
            match (t[value].as_i64(), t.get(bounds)) {
                (Some(_), None) => {}
                (None, Some(b)) => {
                    let b = b.as_array().unwrap();
                    assert!(b[0].as_i64() < b[1].as_i64(), "{t}");
                    assert_eq!(t["loss"], Value::Null);
                }
                _ => panic!("{value} and {bounds}: {t}"),
            }
        }
    }
    // The server's maximum cuts a longer time (500 ms here).
    let a = post(
        &app,
        "/api/review",
        json!({"moves": moves, "time_ms": 1e12}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["time_limit_ms"], 500);
    // One turn of Kalah(6,4), whose following position alone takes far more than the time
    // (tester 113: the answer had no turn, "exact": true and 0 nodes): the turn is there,
    // with the bounds proven of the turn played and those of its position's seeds.
    let a = post(&app, "/api/review", json!({"moves": "1", "time_ms": 200})).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let v = &a.body;
    assert_eq!(v["turns"].as_array().unwrap().len(), 1, "{}", a.text);
    assert_eq!(v["exact"], false, "{}", a.text);
    assert!(v["nodes"].as_u64().unwrap() > 0, "{}", a.text);
    let t = &v["turns"][0];
    assert_eq!(t["value"], Value::Null, "{t}");
    assert_eq!(t["best_value"], Value::Null, "{t}");
    assert!(
        t["value_bounds"].is_array() && t["best_value_bounds"].is_array(),
        "{t}"
    );
}

/// `nodes` bounds each position's search: every turn of the game is reviewed, those of
/// positions not solved within it with bounds (`exact` false), and the answer repeats.
#[tokio::test]
async fn a_node_limited_review_bounds_each_position_and_repeats() {
    let app = node_app();
    let moves = first_house_game(20);
    let body = json!({"moves": moves, "nodes": 2000});
    let a = post(&app, "/api/review", body.clone()).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    let v = &a.body;
    assert_eq!(
        (v["complete"].clone(), v["exact"].clone()),
        (json!(true), json!(false)),
        "{}",
        a.text
    );
    let turns = v["turns"].as_array().unwrap();
    assert_eq!(turns.len() as u64, v["game_turns"].as_u64().unwrap());
    assert_eq!(turns[0]["turn"], 1);
    for t in turns {
        assert!(t["nodes"].as_u64().unwrap() <= 2000 + 1024, "{t}");
    }
    assert!(
        turns[0]["value"].is_null() && turns[0]["best_value_bounds"].is_array(),
        "{}",
        turns[0]
    );
    let unproven = v["players"]["south"]["unproven"].as_u64().unwrap()
        + v["players"]["north"]["unproven"].as_u64().unwrap();
    assert!(unproven > 0);
    let b = post(&app, "/api/review", body).await;
    assert_eq!(b.body["turns"], v["turns"]);
    assert_eq!(b.body["nodes"], v["nodes"]);
}

/// Bad fields are named as on the other game endpoints: a wrong type or an unknown field is a
/// 400, a value out of range (`time_ms`, `nodes`) or an illegal move a 422; every engine slot
/// taken is a 503 at once.
#[tokio::test]
async fn bad_review_requests_are_refused_naming_the_field() {
    let app = app();
    let cases = [
        (json!({"moves": [1], "time_ms": 0}), StatusCode::UNPROCESSABLE_ENTITY, "field 'time_ms' must be a whole number from 1 to 500 ms (longer times are cut to 500), not 0"),
        (json!({"moves": [1], "time_ms": -5}), StatusCode::UNPROCESSABLE_ENTITY, "field 'time_ms'"),
        (json!({"moves": [1], "time_ms": "300"}), StatusCode::BAD_REQUEST, "field 'time_ms' must be a number, not a string"),
        (json!({"moves": [1], "nodes": 0}), StatusCode::UNPROCESSABLE_ENTITY, "field 'nodes' must be a whole number from 1 to 1000000, not 0"),
        (json!({"moves": [1], "nodes": 1000001}), StatusCode::UNPROCESSABLE_ENTITY, "field 'nodes' must be a whole number from 1 to 1000000, not 1000001"),
        (json!({"moves": [1], "nodes": true}), StatusCode::BAD_REQUEST, "field 'nodes' must be a number, not a boolean"),
        (json!({"moves": [1], "level": "perfect"}), StatusCode::BAD_REQUEST, "unknown field 'level' (this endpoint takes: rules, position, houses, seeds, layout, mirrored, moves, time_ms, nodes)"),
        (json!({"moves": [3, 3]}), StatusCode::UNPROCESSABLE_ENTITY, "move 2 ('3') of 'moves'"),
        (json!({"moves": [7]}), StatusCode::UNPROCESSABLE_ENTITY, "there is no house 7"),
        (json!({"moves": "3-6-1"}), StatusCode::UNPROCESSABLE_ENTITY, "'3-6-1' goes on after action 2 (house 6), which ends the turn"),
        (json!({"houses": 13, "moves": [1]}), StatusCode::UNPROCESSABLE_ENTITY, "field 'houses' must be a whole number from 1 to 12, not 13"),
        (json!({"position": "4,4 S", "houses": 6}), StatusCode::BAD_REQUEST, "give either 'position' or 'houses'"),
        (json!({"rules": "capture=sometimes"}), StatusCode::BAD_REQUEST, "field 'rules'"),
        // A malformed field is named before any impossible value.
        (json!({"moves": [7], "time_ms": "x"}), StatusCode::BAD_REQUEST, "field 'time_ms' must be a number"),
    ];
    for (body, status, words) in cases {
        assert_error(
            &post(&app, "/api/review", body.clone()).await,
            status,
            &[words],
        );
    }
    let full = router(Config {
        engine_slots: 0,
        ..config()
    });
    let a = post(&full, "/api/review", json!({"moves": [1]})).await;
    assert_error(
        &a,
        StatusCode::SERVICE_UNAVAILABLE,
        &["busy", "every engine slot is in use (0 in all)"],
    );
    assert_eq!(a.headers[header::RETRY_AFTER], "1");
    // A GET is the wrong method; the 404's list names the endpoint.
    assert_error(
        &send(&app, "GET", "/api/review", "").await,
        StatusCode::METHOD_NOT_ALLOWED,
        &["/api/review takes POST"],
    );
    assert_error(
        &post(&app, "/api/reviews", json!({})).await,
        StatusCode::NOT_FOUND,
        &["analyze, review, record/export"],
    );
}

/// A client that hangs up during a review gives its engine slot back at once, as for an
/// analysis: the review's searches are stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_hangs_up_stops_its_review() {
    use tokio::io::AsyncWriteExt;
    let server = one_slot_server().await;
    let addr = server.addr;
    let body = json!({"moves": first_house_game(40), "time_ms": 8000}).to_string();
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = request_text(addr, "POST", "/api/review", &body, false);
    s.write_all(req.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(slots_free(addr).await, 0, "the review holds the only slot");
    drop(s);
    let hung_up = std::time::Instant::now();
    while slots_free(addr).await == 0 {
        assert!(
            hung_up.elapsed() < Duration::from_secs(3),
            "the slot is still taken {:?} after the client hung up",
            hung_up.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.stop().await;
}
