;;; eglot-journey.el --- Emacs + eglot end-to-end driver for intent-lsp  -*- lexical-binding: t; -*-

;; Run by test/e2e/emacs.test.ts as `emacs --batch -q --no-site-file -l eglot-journey.el'.  Sets up
;; clients/emacs/intent-lsp.el exactly as its README says for eglot, then, in a workspace without version
;; control whose files stock Emacs 28 opens in `fundamental-mode' (.md, .ts):
;;   M-x eglot in docs/notes.md; an inserted line outside the selected intent's scope is flagged on exactly
;;   that line; M-x eglot-code-actions, "Select INT-003 …", clears it; C-x C-s records the line; hover
;;   (what eldoc shows) names the record; src/api/weather.ts, visited next, joins the same server;
;;   M-x intent-lsp-select INT-001 from that buffer; M-x intent-lsp-blame on the saved line.
;; Prints, one per line (the test asserts on them):
;;   EMACS <version> | EGLOT <library> | MODE <major mode> | SERVER <name> <root> | DIAG <l> <c> <l> <c> <type> <text>
;;   ACTION <title> | PICKED <title> | CLEARED | SAVED <ledger lines> | HOVER <markdown line>
;;   JOINED <major mode> <same server> | SERVERS <count> | SELECTED <id> | BLAME <line> | PASS   (or FAIL: <why>)
;; Lines and columns are 0-based, as in LSP.  Environment: WS, FILE, OTHER_FILE (relative to WS), NODE,
;; SERVER_JS, CLIENT_DIR (clients/emacs), HARNESS, EDIT_LINE (0-based), EDIT_TEXT, SELECT_TITLE,
;; SELECT_AFTER (an intent id), TIMEOUT (seconds), EVENTS_LOG (eglot's JSON-RPC events, written at the end).

;;; Code:

(load (getenv "HARNESS") nil t)

(defvar e2e-server nil)

(defun e2e-save-events ()
  (let ((file (getenv "EVENTS_LOG")))
    (when (and file e2e-server)
      (ignore-errors
        (with-current-buffer (jsonrpc-events-buffer e2e-server)
          (write-region (point-min) (point-max) file nil 'silent))))))
(add-hook 'e2e-on-fail #'e2e-save-events)

(defun e2e-eglot-hover ()
  "What eldoc gets from eglot for point (eglot's hover, rendered), or nil when there is none."
  (let ((doc 'pending))
    (eglot-hover-eldoc-function (lambda (text &rest _) (setq doc text)))
    (e2e-wait "eglot's hover answer" (lambda () (not (eq doc 'pending))))
    doc))

(defun e2e-run ()
  (e2e-out "EMACS %s" emacs-version)
  (e2e-activate-packages)
  (unless (require 'eglot nil t)
    (e2e-fail "eglot is not available (Emacs 28: apt-get install -y elpa-eglot; Emacs 29+ has it built in)"))
  (require 'flymake)
  (e2e-out "EGLOT %s" (locate-library "eglot"))

  ;; clients/emacs/README.md, eglot section (NODE SERVER_JS stands for intent-lsp on PATH)
  (add-to-list 'load-path (e2e-env "CLIENT_DIR"))
  (require 'intent-lsp)
  (setq intent-lsp-command (list (e2e-env "NODE") (e2e-env "SERVER_JS") "--stdio"))
  (intent-lsp-setup)

  (let* ((ws (file-name-as-directory (e2e-env "WS")))
         (file (expand-file-name (e2e-env "FILE") ws))
         (other-file (expand-file-name (e2e-env "OTHER_FILE") ws))
         (edit-line (string-to-number (e2e-env "EDIT_LINE")))
         (edit-text (e2e-env "EDIT_TEXT")))
    (find-file file)
    (e2e-out "MODE %s" major-mode)
    ;; M-x eglot, as typed: eglot guesses mode, project and server, and asks nothing here
    (call-interactively #'eglot)
    (setq e2e-server (e2e-wait "eglot to connect" #'eglot-current-server))
    (e2e-wait "the server's initialize answer" (lambda () (plist-get (eglot--server-info e2e-server) :name)))
    (e2e-out "SERVER %s %s" (plist-get (eglot--server-info e2e-server) :name)
             (project-root (eglot--project e2e-server)))
    (unless flymake-mode (e2e-fail "eglot did not turn on flymake-mode"))
    ;; what Flymake does when the mode comes on, after the next command
    (flymake-start)

    ;; insert a line above line EDIT_LINE; it becomes line EDIT_LINE
    (e2e-goto-line edit-line)
    (insert edit-text "\n")
    ;; eglot's idle timer would send this after `eglot-send-changes-idle-time'
    (eglot--signal-textDocument/didChange)
    (e2e-wait "an out-of-scope diagnostic"
              (lambda () (seq-some (lambda (d) (string-match-p "\\[out-of-scope\\]" (flymake-diagnostic-text d)))
                                   (e2e-diags "intent-lsp"))))
    (e2e-print-diags "DIAG" (e2e-diags "intent-lsp"))

    ;; M-x eglot-code-actions on the flagged line, answering its question the way a user would
    (let* ((d (car (e2e-diags "intent-lsp")))
           ;; a keyboard event, not a mouse click: eglot asks with completing-read, not a popup menu
           (last-nonmenu-event ?\r))
      (goto-char (flymake-diagnostic-beg d))
      (cl-letf (((symbol-function 'completing-read) (e2e-pick (e2e-env "SELECT_TITLE"))))
        (eglot-code-actions (flymake-diagnostic-beg d) (flymake-diagnostic-end d) nil t)))
    (e2e-wait "the diagnostic to clear" (lambda () (null (e2e-diags "intent-lsp"))))
    (e2e-out "CLEARED")

    ;; C-x C-s: eglot sends willSave/didSave; the server appends one record
    (save-buffer)
    (e2e-out "SAVED %d" (length (e2e-wait "a record in the ledger" (lambda () (e2e-ledger-lines ws)))))

    ;; hover on the saved line: what eldoc asks eglot for when point rests there
    (e2e-goto-line edit-line)
    (let ((hover (e2e-wait "a hover naming the record"
                           (lambda ()
                             (let ((doc (e2e-eglot-hover)))
                               (and (stringp doc) (string-match-p "trace " doc) doc))))))
      (e2e-print-lines "HOVER" (substring-no-properties hover)))

    ;; another file of the workspace, in another buffer: it joins the running server
    (find-file other-file)
    (e2e-wait "the second file to be managed" (lambda () (bound-and-true-p eglot--managed-mode)))
    (e2e-out "JOINED %s %s" major-mode (eq (eglot-current-server) e2e-server))
    (e2e-out "SERVERS %d" (length (gethash (eglot--current-project) eglot--servers-by-project)))

    ;; M-x intent-lsp-select from there, answering its question
    (let ((select-after (e2e-env "SELECT_AFTER")))
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt collection &rest _)
                   (or (seq-find (lambda (c) (string-prefix-p (concat select-after " ") c)) (all-completions "" collection))
                       (e2e-fail "intent-lsp-select did not offer %s" select-after)))))
        (call-interactively #'intent-lsp-select))
      (e2e-out "SELECTED %s" select-after))

    ;; M-x intent-lsp-blame on the saved line, back in the first file
    (switch-to-buffer (find-buffer-visiting file))
    (e2e-goto-line edit-line)
    (e2e-print-lines "BLAME" (or (e2e-capture-message #'intent-lsp-blame) "<nothing>"))

    (eglot-shutdown e2e-server nil nil t) ; keep the events buffer for EVENTS_LOG
    (e2e-save-events)
    (e2e-out "PASS")))

(condition-case err
    (e2e-run)
  (error (e2e-fail "%s" (error-message-string err))))
(kill-emacs 0)

;;; eglot-journey.el ends here
