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

/// UTF-16 or UTF-32 text, as some Windows editors and PowerShell's `>` save it (UTF-16),
/// recognised from a file's first bytes so that a reader expecting UTF-8 can name it (`--load`,
/// tester 77: "bad byte at offset 0"; `solve --batch`: "not UTF-8 text", then "'\u{0}' is not
/// a seed count"; tester 82: UTF-32 was called UTF-16, and the advised conversion left NULs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WideText {
    /// `"UTF-16"` or `"UTF-32"`.
    pub encoding: &'static str,
    /// The byte-order mark the text opens with (FF FE, FE FF, FF FE 00 00 or 00 00 FE FF), if
    /// any.
    pub mark: Option<&'static [u8]>,
    /// `"BE"` or `"LE"`: the byte order, from the mark or from where the NUL bytes are.
    pub order: &'static str,
}

impl WideText {
    /// What `bytes` (the start of a file) show: a byte-order mark of UTF-32 or UTF-16, or,
    /// without a mark, units that look like text in one of them: no NUL character, no code point
    /// out of range, and at least a quarter printable ASCII or Latin-1 (whose other bytes are
    /// the NULs that give the encoding away). A binary file with NULs here and there is not
    /// taken for text; an array of small numbers may be. `None` for anything else.
    pub fn detect(bytes: &[u8]) -> Option<WideText> {
        const MARKS: [(&str, &[u8], &str); 4] = [
            // UTF-32LE's mark opens with UTF-16LE's: tried first.
            ("UTF-32", &[0xFF, 0xFE, 0, 0], "LE"),
            ("UTF-32", &[0, 0, 0xFE, 0xFF], "BE"),
            ("UTF-16", &[0xFF, 0xFE], "LE"),
            ("UTF-16", &[0xFE, 0xFF], "BE"),
        ];
        if let Some(&(encoding, mark, order)) =
            MARKS.iter().find(|(_, mark, _)| bytes.starts_with(mark))
        {
            return Some(WideText {
                encoding,
                mark: Some(mark),
                order,
            });
        }
        if bytes.len() < 8 || !bytes.contains(&0) {
            return None;
        }
        // Whether the whole units of `unit` bytes, in that byte order, look like text in that
        // encoding: no NUL character (text has none), every unit a possible code point (at
        // most U+10FFFF), and at least a quarter of them printable ASCII or Latin-1 (the line
        // breaks, digits and spaces of any text; tester 84: Cyrillic and CJK records were
        // missed when every unit but a quarter had to be ASCII).
        let looks = |unit: usize, little: bool| {
            let mut printable = 0;
            for c in bytes.chunks_exact(unit) {
                let v = c.iter().fold(0u32, |v, &b| (v << 8) | u32::from(b));
                let v = if little {
                    v.swap_bytes() >> (32 - 8 * unit)
                } else {
                    v
                };
                if v == 0 || v > 0x10FFFF {
                    return false;
                }
                if v < 0x100 && (v >= 0x20 && v != 0x7F || [0x09, 0x0A, 0x0D].contains(&v)) {
                    printable += 1;
                }
            }
            let units = bytes.len() / unit;
            units > 0 && printable * 4 >= units
        };
        [
            ("UTF-32", 4, "LE"),
            ("UTF-32", 4, "BE"),
            ("UTF-16", 2, "LE"),
            ("UTF-16", 2, "BE"),
        ]
        .into_iter()
        .find(|&(_, unit, order)| looks(unit, order == "LE"))
        .map(|(encoding, _, order)| WideText {
            encoding,
            mark: None,
            order,
        })
    }

    /// The conversion to suggest: `iconv -f UTF-16 -t UTF-8` (the mark tells iconv the byte
    /// order), or with the order named (`UTF-16LE`) for text without a mark.
    pub fn iconv(self) -> String {
        match self.mark {
            Some(_) => format!("iconv -f {} -t UTF-8", self.encoding),
            None => format!("iconv -f {}{} -t UTF-8", self.encoding, self.order),
        }
    }

    /// What the text is, for a message: `UTF-16 text (byte-order mark FF FE)`, or `UTF-16 text
    /// without a byte-order mark, it seems`.
    pub fn describe(self) -> String {
        match self.mark {
            Some(mark) => {
                let hex: Vec<String> = mark.iter().map(|b| format!("{b:02X}")).collect();
                format!("{} text (byte-order mark {})", self.encoding, hex.join(" "))
            }
            None => format!("{} text without a byte-order mark, it seems", self.encoding),
        }
    }
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

    /// UTF-16 and UTF-32, with and without a byte-order mark, are told apart, with the
    /// conversion that undoes each (tester 82: UTF-32 was called UTF-16); UTF-8 text and binary
    /// files with NUL bytes here and there are not taken for them (tester 80: a file "a\0b" and
    /// the start of an executable were "UTF-16LE").
    #[test]
    fn wide_text_is_named_by_encoding_and_byte_order() {
        let text = "1. 3-6 2\n2. 4\n";
        let units16: Vec<u16> = text.encode_utf16().collect();
        let le16: Vec<u8> = units16.iter().flat_map(|u| u.to_le_bytes()).collect();
        let be16: Vec<u8> = units16.iter().flat_map(|u| u.to_be_bytes()).collect();
        let le32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect();
        let be32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect();
        let with = |mark: &[u8], body: &[u8]| [mark, body].concat();
        for (bytes, said, iconv) in [
            (
                with(&[0xFF, 0xFE], &le16),
                "UTF-16 text (byte-order mark FF FE)",
                "iconv -f UTF-16 -t UTF-8",
            ),
            (
                with(&[0xFE, 0xFF], &be16),
                "UTF-16 text (byte-order mark FE FF)",
                "iconv -f UTF-16 -t UTF-8",
            ),
            (
                with(&[0xFF, 0xFE, 0, 0], &le32),
                "UTF-32 text (byte-order mark FF FE 00 00)",
                "iconv -f UTF-32 -t UTF-8",
            ),
            (
                with(&[0, 0, 0xFE, 0xFF], &be32),
                "UTF-32 text (byte-order mark 00 00 FE FF)",
                "iconv -f UTF-32 -t UTF-8",
            ),
            (
                le16.clone(),
                "UTF-16 text without a byte-order mark, it seems",
                "iconv -f UTF-16LE -t UTF-8",
            ),
            (
                be16.clone(),
                "UTF-16 text without a byte-order mark, it seems",
                "iconv -f UTF-16BE -t UTF-8",
            ),
            (
                le32.clone(),
                "UTF-32 text without a byte-order mark, it seems",
                "iconv -f UTF-32LE -t UTF-8",
            ),
            (
                be32.clone(),
                "UTF-32 text without a byte-order mark, it seems",
                "iconv -f UTF-32BE -t UTF-8",
            ),
        ] {
            let w = WideText::detect(&bytes).expect(said);
            assert_eq!((w.describe().as_str(), w.iconv().as_str()), (said, iconv));
        }
        // A character above U+00FF here and there (tester 83: a curly apostrophe hid it).
        let curly: Vec<u8> = "[Event \"Ann\u{2019}s club\"]\n1. S 3-6\n"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(WideText::detect(&curly).unwrap().order, "LE");
        // Mostly Cyrillic or CJK, with line breaks, digits and spaces (tester 84).
        for script in [
            "[South \"Сергей Иванов\"]\n# Партия сыграна в Москве\n1. S 3-6\n",
            "# 这是一盘在东京下的卡拉哈棋局这是一盘在东京下的卡拉哈棋局\n2,2,2,2,0,2,2,2,2,0 S\n",
        ] {
            let be: Vec<u8> = script
                .encode_utf16()
                .flat_map(|u| u.to_be_bytes())
                .collect();
            let w = WideText::detect(&be).expect(script);
            assert_eq!((w.encoding, w.order), ("UTF-16", "BE"));
            let le32: Vec<u8> = script
                .chars()
                .flat_map(|c| (c as u32).to_le_bytes())
                .collect();
            let w = WideText::detect(&le32).expect(script);
            assert_eq!((w.encoding, w.order), ("UTF-32", "LE"));
        }
        // A line of it, cut at its line feed as a line reader cuts it (the NULs after the
        // line feed go with the next line).
        let first = &le16[..le16.iter().position(|&b| b == b'\n').unwrap() + 1];
        assert_eq!(WideText::detect(first).unwrap().order, "LE");
        let first = &le32[..le32.iter().position(|&b| b == b'\n').unwrap() + 1];
        assert_eq!(WideText::detect(first).unwrap().encoding, "UTF-32");
        // Not wide text: UTF-8 (a UTF-8 mark included), short bytes, NULs here and there.
        let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0".to_vec();
        elf.extend(b"text with one NUL\0 in it, then more text".iter());
        for bytes in [
            text.as_bytes(),
            "\u{feff}1. 3-6".as_bytes(),
            b"a\0b",
            b"\0\0\0\0\0\0\0\0",
            &elf,
        ] {
            assert_eq!(WideText::detect(bytes), None, "{bytes:?}");
        }
    }
}
