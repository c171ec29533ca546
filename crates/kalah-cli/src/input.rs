//! Reading lines with bounded memory, whatever the input holds (an endless line such as
//! `/dev/zero` included).

use std::io::BufRead;

/// What [`read_line`] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A line, in the buffer (with its line break if it had one).
    Line,
    /// A line longer than the limit: not kept (the buffer is empty), read to its end.
    TooLong,
    /// A line longer than the limit that did not end within the bytes [`read_line`] reads of
    /// one line: abandoned, the rest of it not read (an endless input such as `/dev/zero`).
    Abandoned,
    /// The end of the input.
    End,
}

/// The most bytes of one line read to find its end, for [`read_line`]'s `limit`: a line longer
/// than this is abandoned (64 KiB; a command or a position line is a few dozen bytes).
pub const ENDLESS_LINE: usize = 64 * 1024;

/// Reads one line into `buf` (cleared first), keeping at most `max` bytes of text (and its line
/// break) in memory. A line of more than `max` bytes, not counting its line break (`\n` or
/// `\r\n`), gives
/// [`LineRead::TooLong`] once it has been read to its end (so the next call reads the next
/// line), or [`LineRead::Abandoned`] when no end came within `limit` bytes: reading stops there
/// (an endless input never ends its line; with `limit` at most `max`, at once).
///
/// # Errors
/// The input's I/O error.
pub fn read_line(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
    limit: usize,
) -> std::io::Result<LineRead> {
    buf.clear();
    let mut any = false;
    let mut too_long = false;
    // Bytes of the line read so far (kept or not).
    let mut read = 0usize;
    // Whether the last byte read was a CR.
    let mut last_cr = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        // Whether the line break is `\r\n` (its CR may end the chunk before).
        let crlf = done
            && if take >= 2 {
                chunk[take - 2] == b'\r'
            } else {
                last_cr
            };
        last_cr = chunk[take - 1] == b'\r';
        if !too_long {
            // Room for `max` bytes of text, its line break (`\n` or `\r\n`) and one byte
            // more, to tell a line of `max` bytes from a longer one (tester 41: a 1000-byte
            // line was too long; tester 67: so was a 4096-byte line ending in `\r\n`).
            let room = max + 3 - buf.len().min(max + 3);
            buf.extend_from_slice(&chunk[..take.min(room)]);
            let mut text = buf.len() - usize::from(buf.last() == Some(&b'\n'));
            // A CR before the LF, or last so far (its LF may come with the next chunk).
            if text > 0 && buf[text - 1] == b'\r' {
                text -= 1;
            }
            if text > max {
                too_long = true;
                buf.clear();
            }
        }
        input.consume(take);
        read = read.saturating_add(take);
        // The line's end must come within `limit` bytes of text (its `\n` or `\r\n` not
        // counted; tester 75: the CR was), however the input's buffer cuts it (tester 74: with
        // 8 KiB reads, a line of up to 72 KiB was read to its end against a limit of 64 KiB).
        // Before the end, a CR last may be the start of a `\r\n`.
        let text = if done {
            read - 1 - usize::from(crlf)
        } else {
            read - usize::from(last_cr)
        };
        if too_long && text > limit {
            return Ok(LineRead::Abandoned);
        }
        if done {
            break;
        }
    }
    Ok(match (any, too_long) {
        (false, _) => LineRead::End,
        (true, true) => LineRead::TooLong,
        (true, false) => LineRead::Line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_on_the_text_not_its_line_break() {
        for (line, want) in [
            ("x".repeat(10) + "\n", LineRead::Line),
            ("x".repeat(10), LineRead::Line),
            ("x".repeat(11) + "\n", LineRead::TooLong),
            ("x".repeat(11), LineRead::TooLong),
            // A Windows line break is a line break (tester 67).
            ("x".repeat(10) + "\r\n", LineRead::Line),
            ("x".repeat(11) + "\r\n", LineRead::TooLong),
            ("x".repeat(10) + "\rx\n", LineRead::TooLong),
        ] {
            let mut buf = Vec::new();
            let mut input = line.as_bytes();
            assert_eq!(
                read_line(&mut input, &mut buf, 10, usize::MAX).unwrap(),
                want,
                "{line:?}"
            );
            if want == LineRead::Line {
                assert_eq!(buf, line.as_bytes());
            }
        }
    }

    #[test]
    fn a_cr_whose_lf_comes_in_the_next_chunk_is_a_line_break() {
        let text = "x".repeat(10) + "\r\nab\n";
        // Chunks of 11 bytes: the first ends with the CR.
        let mut input = std::io::BufReader::with_capacity(11, text.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut input, &mut buf, 10, usize::MAX).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, ("x".repeat(10) + "\r\n").as_bytes());
        assert_eq!(
            read_line(&mut input, &mut buf, 10, usize::MAX).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"ab\n");
    }

    #[test]
    fn a_line_is_abandoned_past_the_limit_whatever_the_buffer_size() {
        // Text of `limit` bytes (then its line break) is read to its end; one byte more is
        // abandoned, with reads of 1, 3, 7 or 64 bytes.
        for cap in [1, 3, 7, 21, 22, 64] {
            for (text, end, want) in [
                (20, "\n", LineRead::TooLong),
                (21, "\n", LineRead::Abandoned),
                (20, "\r\n", LineRead::TooLong),
                (21, "\r\n", LineRead::Abandoned),
            ] {
                let line = "x".repeat(text) + end + "ab\n";
                let mut input = std::io::BufReader::with_capacity(cap, line.as_bytes());
                let mut buf = Vec::new();
                assert_eq!(
                    read_line(&mut input, &mut buf, 5, 20).unwrap(),
                    want,
                    "capacity {cap}, {text} bytes, {end:?}"
                );
            }
        }
    }

    #[test]
    fn lines_are_bounded() {
        let text = format!("ab\n{}\ncd", "x".repeat(100));
        let mut buf = Vec::new();
        let mut input = text.as_bytes();
        assert_eq!(
            read_line(&mut input, &mut buf, 10, usize::MAX).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"ab\n");
        assert_eq!(
            read_line(&mut input, &mut buf, 10, usize::MAX).unwrap(),
            LineRead::TooLong
        );
        assert!(buf.is_empty());
        assert_eq!(
            read_line(&mut input, &mut buf, 10, usize::MAX).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"cd");
        assert_eq!(
            read_line(&mut input, &mut buf, 10, usize::MAX).unwrap(),
            LineRead::End
        );
        // With `limit` at `max`, reading stops soon after it.
        use std::io::Read;
        let mut endless = std::io::repeat(0).take(1 << 30);
        let mut endless = std::io::BufReader::new(&mut endless);
        assert_eq!(
            read_line(&mut endless, &mut buf, 10, 10).unwrap(),
            LineRead::Abandoned
        );
    }

    /// A line past `limit` without its end is abandoned after about `limit` bytes (`kalah
    /// play < /dev/zero` read one endless line forever); one that ends within it is read to
    /// its end, and the next line comes next.
    #[test]
    fn an_endless_line_is_abandoned_at_the_limit() {
        use std::io::Read;
        let mut endless = std::io::BufReader::new(std::io::repeat(0).take(1 << 30));
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut endless, &mut buf, 10, 100_000).unwrap(),
            LineRead::Abandoned
        );
        let left = endless.bytes().count();
        let read = (1 << 30) - left;
        assert!((100_000..100_000 + 64 * 1024).contains(&read), "{read}");
        let text = format!("{}\nok\n", "x".repeat(50_000));
        let mut input = text.as_bytes();
        assert_eq!(
            read_line(&mut input, &mut buf, 10, 100_000).unwrap(),
            LineRead::TooLong
        );
        assert_eq!(
            read_line(&mut input, &mut buf, 10, 100_000).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"ok\n");
    }
}

/// UTF-16 text, as some Windows editors and PowerShell's `>` save it, recognised from a file's
/// first bytes so that a reader expecting UTF-8 can name it (`--load`, tester 77: "bad byte at
/// offset 0"; `solve --batch`: "not UTF-8 text", then "'\u{0}' is not a seed count").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Utf16 {
    /// The text opens with UTF-16's byte-order mark: these two bytes (FF FE or FE FF).
    Marked([u8; 2]),
    /// No byte-order mark, but NUL bytes in every other byte, as ASCII text in UTF-16 has them:
    /// `"BE"` (the even bytes) or `"LE"` (the odd bytes).
    Unmarked(&'static str),
}

impl Utf16 {
    /// What `bytes` (the start of a file) show: a byte-order mark, or NUL bytes in more than
    /// three quarters of one parity's bytes; `None` for anything else (a stray NUL included).
    pub fn detect(bytes: &[u8]) -> Option<Utf16> {
        if let Some(bom) = [[0xFF, 0xFE], [0xFE, 0xFF]]
            .into_iter()
            .find(|b| bytes.starts_with(b))
        {
            return Some(Utf16::Marked(bom));
        }
        if !bytes.contains(&0) {
            return None;
        }
        // UTF-16 without a mark has a NUL in every other byte of ASCII text: the even ones in
        // big-endian order, the odd ones in little-endian (tester 79: a little-endian file was
        // told to convert from UTF-16BE).
        let nuls = |parity: usize| {
            bytes
                .iter()
                .skip(parity)
                .step_by(2)
                .filter(|&&b| b == 0)
                .count()
        };
        let half = bytes.len() / 2;
        [(0, "BE"), (1, "LE")]
            .into_iter()
            .find(|&(parity, _)| nuls(parity) * 4 > half * 3)
            .map(|(_, order)| Utf16::Unmarked(order))
    }

    /// The conversion to suggest: `iconv -f UTF-16 -t UTF-8` (the mark tells iconv the byte
    /// order), or with `UTF-16BE` / `UTF-16LE` for text without a mark.
    pub fn iconv(self) -> String {
        match self {
            Utf16::Marked(_) => "iconv -f UTF-16 -t UTF-8".to_string(),
            Utf16::Unmarked(order) => format!("iconv -f UTF-16{order} -t UTF-8"),
        }
    }

    /// What the text is, for a message: `UTF-16 text (byte-order mark FF FE)`, or `UTF-16 text
    /// without a byte-order mark, it seems`.
    pub fn describe(self) -> String {
        match self {
            Utf16::Marked([a, b]) => format!("UTF-16 text (byte-order mark {a:02X} {b:02X})"),
            Utf16::Unmarked(_) => "UTF-16 text without a byte-order mark, it seems".to_string(),
        }
    }
}
