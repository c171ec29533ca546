//! The API's errors: a status code and a message naming the problem, sent as
//! `{"error": "..."}`.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An error answer of the API.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed: not JSON, a field of the wrong type, an unknown field (400).
    #[error("{0}")]
    BadRequest(String),
    /// The request is well-formed but cannot be carried out: a bad position, an illegal move, a
    /// finished game (422).
    #[error("{0}")]
    Unprocessable(String),
    /// The body is larger than the server accepts (413).
    #[error("the request body is larger than the limit of {0} bytes")]
    TooLarge(usize),
    /// The request body did not arrive within the server's read timeout, in ms (408).
    #[error("the request body did not arrive within {0} ms")]
    RequestTimeout(u128),
    /// No such endpoint (404).
    #[error("{0}")]
    NotFound(String),
    /// The endpoint exists but not for this method (405).
    #[error("{0}")]
    MethodNotAllowed(String),
    /// Every engine slot is busy (503, with `Retry-After: 1`).
    #[error("the server is busy: every engine slot is in use ({0} in all); try again in a moment")]
    Busy(usize),
    /// The engine did not answer in time (503).
    #[error("the engine did not answer within {0} ms")]
    Timeout(u128),
    /// A fault of the server (500).
    #[error("{0}")]
    Internal(String),
}

impl ApiError {
    /// The HTTP status of the error.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RequestTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Busy(_) | ApiError::Timeout(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // However long the input it quotes, a message stays short (tester 74).
        let body = Json(serde_json::json!({
            "error": kalah_core::error::bounded(&self.to_string())
        }));
        let mut resp = (self.status(), body).into_response();
        if matches!(self, ApiError::Busy(_)) {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        if matches!(self, ApiError::RequestTimeout(_)) {
            // The rest of the body is not awaited: the connection cannot carry another request.
            resp.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
        }
        resp
    }
}
