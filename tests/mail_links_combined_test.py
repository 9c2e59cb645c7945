#!/usr/bin/env python3
"""Generated messages holding many links spread over the containers a
reader opens - PDF attachments (some with compressed object streams, some
encrypted with the empty user password), .docx files, QR codes in PNG,
JPEG, GIF and WebP images (attached and inline), HTML, SVG and .url
attachments, calendar invites, Outlook conditional comments, links
rewritten by Safe Links and Proofpoint, and the HTML and text bodies -
each attachment labelled application/octet-stream as phishing mail labels
it. `urisan extract --mail --json` must report at least 99%
of the links, each in the context of its container.

usage: mail_links_combined_test.py URISAN [LINKS]   (default 1000)
"""
import email.message
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile

try:
    import qrcode
    from PIL import Image  # noqa: F401 - qrcode's image factory
except ImportError as e:
    print(f"SKIP: {e} (python3-qrcode, python3-pil)")
    sys.exit(77)
if shutil.which("qpdf") is None:
    print("SKIP: qpdf not installed")
    sys.exit(77)

URISAN = sys.argv[1]
TOTAL = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
rng = random.Random(37)
tmp = tempfile.mkdtemp(prefix="urisan-combined-")


def url(kind, i):
    return f"https://{kind}-{i}.links{rng.randrange(100)}.example/p/{i}?k={rng.randrange(10**6)}"


def pdf(urls, objstm, encrypt):
    """One link annotation a URL, three to a page."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", None]
    pages, annots = [], []
    per = 3
    npages = (len(urls) + per - 1) // per
    first_annot = 3 + npages
    for p in range(npages):
        refs = " ".join(f"{first_annot + k} 0 R" for k in range(p * per, min(len(urls), p * per + per)))
        pages.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [{refs}] >>".encode())
    for u in urls:
        annots.append(b"<< /Type /Annot /Subtype /Link /Rect [72 700 300 720] /A << /S /URI /URI (" +
                      u.encode() + b") >> >>")
    kids = " ".join(f"{3 + p} 0 R" for p in range(npages))
    objs[1] = f"<< /Type /Pages /Kids [{kids}] /Count {npages} >>".encode()
    objs += pages + annots
    out, offs = io.BytesIO(), []
    out.write(b"%PDF-1.7\n")
    for i, body in enumerate(objs, 1):
        offs.append(out.tell())
        out.write(b"%d 0 obj\n" % i + body + b"\nendobj\n")
    x = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
    for o in offs:
        out.write(b"%010d 00000 n \n" % o)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, x))
    raw = out.getvalue()
    if not objstm and not encrypt:
        return raw
    src, dst = os.path.join(tmp, "in.pdf"), os.path.join(tmp, "out.pdf")
    open(src, "wb").write(raw)
    cmd = ["qpdf", "--object-streams=generate"]
    if encrypt:
        cmd += ["--encrypt", "", "owner", "256", "--"]
    subprocess.run(cmd + [src, dst], check=True)
    return open(dst, "rb").read()


def docx(urls):
    """A minimal WordprocessingML package, a hyperlink relationship a URL."""
    R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
    rels = "".join(f'<Relationship Id="rId{k + 10}" Type="{R}hyperlink" Target="{u.replace("&", "&amp;")}" '
                   f'TargetMode="External"/>' for k, u in enumerate(urls))
    body = "".join(f'<w:p><w:hyperlink r:id="rId{k + 10}"><w:r><w:t>link {k}</w:t></w:r></w:hyperlink></w:p>'
                   for k in range(len(urls)))
    members = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        "_rels/.rels": f'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{R}officeDocument" Target="word/document.xml"/></Relationships>',
        "word/_rels/document.xml.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        + rels + "</Relationships>",
        "word/document.xml": '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>' + body + "</w:body></w:document>",
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in members.items():
            z.writestr(n, b)
    return out.getvalue()


def qr(u, fmt):
    img = qrcode.make(u).get_image().convert("L" if fmt in ("png", "gif") else "RGB")
    out = io.BytesIO()
    img.save(out, {"png": "PNG", "jpg": "JPEG", "gif": "GIF", "webp": "WEBP"}[fmt],
             **({"lossless": True} if fmt == "webp" else {}))
    return out.getvalue()


def attr(u):
    return u.replace("&", "&amp;").replace('"', "&quot;")


def octet(m, data, name):
    m.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)


def main():
    expected = []  # (context, uri)
    messages = []
    n = 0
    while n < TOTAL:
        m = email.message.EmailMessage()
        m["From"], m["To"], m["Subject"] = "billing@sender.example", "you@example.org", f"invoice {n}"
        text_urls = [url("text", n + k) for k in range(2)]
        html_urls = [url("html", n + k) for k in range(3)]
        mso_url, safe_url, pp_url = url("mso", n + 5), url("safelinks", n + 6), url("proofpoint", n + 7)
        m.set_content("Pay here: " + " and ".join(text_urls))
        m.add_alternative(
            "<p>" + "".join(f'<a href="{attr(u)}">pay</a>' for u in html_urls) + "</p>"
            f'<!--[if mso]><v:roundrect href="{attr(mso_url)}"><center>Pay</center></v:roundrect><![endif]-->'
            '<a href="https://nam02.safelinks.protection.outlook.com/?url='
            f'{urllib.parse.quote(safe_url, safe="")}&amp;data=05%7C01&amp;reserved=0">pay</a>'
            f'<a href="https://urldefense.com/v3/__{attr(pp_url)}__;!!ABC!xyz$">pay</a>', subtype="html")
        expected += [("text", u) for u in text_urls] + [("html-href", u) for u in html_urls]
        expected += [("html-href", mso_url), ("html-href", safe_url), ("html-href", pp_url)]
        n += 8
        att_html, att_svg, att_url, ics_url = (url(k, n + i) for i, k in
                                               enumerate(("htmlatt", "svgatt", "shortcut", "ics")))
        octet(m, f'<html><a href="{attr(att_html)}">open</a></html>'.encode(), f"invoice{n}.html")
        octet(m, f'<svg xmlns="http://www.w3.org/2000/svg"><a href="{attr(att_svg)}"><text>fax</text>'
              '</a></svg>'.encode(), f"fax{n}.svg")
        octet(m, f"[InternetShortcut]\r\nURL={att_url}\r\n".encode(), f"document{n}.url")
        m.add_attachment(f"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:call\r\nURL:{ics_url}\r\n"
                         "END:VEVENT\r\nEND:VCALENDAR\r\n".encode(), maintype="text",
                         subtype="calendar", filename=f"invite{n}.ics")
        expected += [("html-href", att_html), ("html-href", att_svg), ("shortcut-url", att_url),
                     ("ics-url", ics_url)]
        n += 4
        which = len(messages) % 3
        pdf_urls = [url("pdf", n + k) for k in range(7)]
        octet(m, pdf(pdf_urls, objstm=which >= 1, encrypt=which == 2), f"invoice{n}.pdf")
        expected += [("pdf-uri", u) for u in pdf_urls]
        n += 7
        docx_urls = [url("docx", n + k) for k in range(5)]
        octet(m, docx(docx_urls), f"statement{n}.docx")
        expected += [("ooxml-hyperlink", u) for u in docx_urls]
        n += 5
        for k, fmt in enumerate(("png", "jpg", "gif", "webp")):
            u = url("qr" + fmt, n + k)
            if k % 2 == 0:
                octet(m, qr(u, fmt), f"scan{n + k}.{fmt}")
            else:
                m.add_attachment(qr(u, fmt), maintype="image",
                                 subtype={"jpg": "jpeg"}.get(fmt, fmt), disposition="inline")
            expected.append(("qr", u))
        n += 4
        messages.append(bytes(m))
    mbox = os.path.join(tmp, "combined.mbox")
    with open(mbox, "wb") as f:
        for i, b in enumerate(messages):
            f.write(b"From sender@example.org Mon Jan  1 00:00:00 2024\n")
            f.write(b.replace(b"\r\n", b"\n").replace(b"\nFrom ", b"\n>From "))
            f.write(b"\n")
    out = subprocess.run([URISAN, "extract", "--mail", "--json", mbox], capture_output=True,
                         text=True, timeout=3000)
    got = set()
    for line in out.stdout.splitlines():
        r = json.loads(line)
        got.add((r["context"], r["uri"]))
    missing = [e for e in expected if e not in got]
    by = {}
    for ctx, _ in expected:
        by.setdefault(ctx, [0, 0])[0] += 1
    for ctx, _ in missing:
        by[ctx][1] += 1
    for ctx, (total, miss) in sorted(by.items()):
        print(f"{ctx:16} {total - miss:5}/{total:<5} reported")
    share = 1 - len(missing) / len(expected)
    print(f"{len(expected) - len(missing)} of {len(expected)} links reported ({share:.2%}) "
          f"in {len(messages)} messages")
    for e in missing[:10]:
        print("missing:", e)
    shutil.rmtree(tmp)
    if share < 0.99:
        print("FAIL: below 99%")
        return 1
    return 0


sys.exit(main())
