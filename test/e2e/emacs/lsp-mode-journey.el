;;; lsp-mode-journey.el --- Emacs + lsp-mode end-to-end driver: intent-lsp next to a language's server  -*- lexical-binding: t; -*-

;; Run by test/e2e/emacs.test.ts as `emacs --batch -q --no-site-file -l lsp-mode-journey.el'.  Sets up
;; clients/emacs/intent-lsp.el exactly as its README says for lsp-mode.  The language's own server is
;; test/fixtures/fake-language-server, registered the way lsp-mode registers typescript-language-server
;; (a main client activated on the "typescript" language).  Then, in a workspace without version control:
;;   M-x lsp in src/api/weather.ts (fundamental-mode in stock Emacs 28) starts both servers; an inserted line
;;   outside the selected intent's scope is flagged while the other server's warning stays (in Flycheck,
;;   which lsp-mode uses when it is installed: its Flymake backend keeps only the last server's
;;   diagnostics, emacs-lsp/lsp-mode#2808); M-x
;;   lsp-execute-code-action, "Select INT-001 …", clears it; C-x C-s records the line;
;;   M-x lsp-describe-thing-at-point names the record; M-x intent-lsp-select and
;;   M-x intent-lsp-blame; M-x lsp in docs/notes.md starts nothing new: intent-lsp serves it alone.
;; Prints, one per line (the test asserts on them):
;;   EMACS <version> | LSP_MODE <library> | MODE <major mode> | SERVERS <server ids, sorted>
;;   DIAG <l> <c> <l> <c> <level> <text> (both servers' diagnostics at once, from Flycheck) | ACTION <title> | PICKED <title>
;;   CLEARED | REMAINING <the other server's diagnostic> | SAVED <ledger lines> | LENS <line> <text>
;;   HOVER <line> | SELECTED <id> | BLAME <line> | NOTES <major mode> <server ids> | PASS   (or FAIL: <why>)
;; Environment: WS, FILE, OTHER_FILE (relative to WS), NODE, SERVER_JS, FAKE_SERVER_JS, CLIENT_DIR,
;; HARNESS, EDIT_LINE (0-based), EDIT_TEXT, SELECT_TITLE, SELECT_AFTER, TIMEOUT, EVENTS_LOG (lsp-mode's
;; JSON-RPC log of both servers, written at the end).

;;; Code:

(load (getenv "HARNESS") nil t)

(defun e2e-save-events ()
  (let ((file (getenv "EVENTS_LOG")))
    (when file
      (with-temp-file file
        (dolist (buffer (buffer-list))
          (when (string-prefix-p "*lsp-log" (buffer-name buffer))
            (insert "--- " (buffer-name buffer) "\n"
                    (with-current-buffer buffer (buffer-substring-no-properties (point-min) (point-max))) "\n")))))))
(add-hook 'e2e-on-fail #'e2e-save-events)

(defun e2e-server-ids ()
  (mapconcat #'symbol-name
             (sort (mapcar (lambda (w) (lsp--client-server-id (lsp--workspace-client w))) (lsp-workspaces))
                   #'string<)
             " "))

(defun e2e-lenses ()
  "lsp-mode's CodeLens overlays in this buffer, as (0-based line . text)."
  (let (lenses)
    (dolist (ov (overlays-in (point-min) (point-max)))
      (when (overlay-get ov 'lsp-lens)
        ;; lsp-lens-place-position end-of-line (the default) draws the lens after the overlay's end, the end
        ;; of the lens's line (the overlay itself starts at the buffer's start); above-line draws it before
        (let* ((after (overlay-get ov 'after-string))
               (text (or after (overlay-get ov 'before-string)))
               (pos (if after (overlay-end ov) (overlay-start ov))))
          (when text
            (push (cons (1- (line-number-at-pos pos)) (string-trim (substring-no-properties text))) lenses)))))
    (sort lenses (lambda (a b) (< (car a) (car b))))))

(defun e2e-errors ()
  "Flycheck's errors in this buffer, after a check of the buffer.
lsp-mode asks Flycheck to check from an idle timer when diagnostics arrive; batch mode runs no idle
timers, so this asks it directly."
  (flycheck-buffer)
  flycheck-current-errors)

(defun e2e-error-matching (regexp)
  (seq-find (lambda (e) (string-match-p regexp (flycheck-error-message e))) (e2e-errors)))

(defun e2e-print-errors (prefix errors)
  "ERRORS as PREFIX <line> <col> <end-line> <end-col> <level> <message>, 0-based like LSP."
  (dolist (e errors)
    (e2e-out "%s %d %d %d %d %s %s" prefix (1- (flycheck-error-line e)) (1- (or (flycheck-error-column e) 1))
             (1- (or (flycheck-error-end-line e) (flycheck-error-line e))) (1- (or (flycheck-error-end-column e) 1))
             (flycheck-error-level e) (flycheck-error-message e))))

(defun e2e-run ()
  (e2e-out "EMACS %s" emacs-version)
  (e2e-activate-packages)
  (unless (and (require 'lsp-mode nil t) (require 'flycheck nil t))
    (e2e-fail "lsp-mode and flycheck are not available (Debian: apt-get install -y elpa-lsp-mode elpa-flycheck)"))
  (e2e-out "LSP_MODE %s" (locate-library "lsp-mode"))
  ;; every JSON-RPC message in *lsp-log*, for EVENTS_LOG
  (setq lsp-log-io t)

  ;; clients/emacs/README.md, lsp-mode section (NODE SERVER_JS stands for intent-lsp on PATH)
  (add-to-list 'load-path (e2e-env "CLIENT_DIR"))
  (require 'intent-lsp)
  (setq intent-lsp-command (list (e2e-env "NODE") (e2e-env "SERVER_JS") "--stdio"))
  (intent-lsp-lsp-mode-setup)
  ;; lsp-mode 8 shows no CodeLens unless asked (lsp-lens-enable defaults to nil)
  (setq lsp-lens-enable t)

  ;; the language's own server, registered as lsp-mode registers typescript-language-server
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection (list (e2e-env "NODE") (e2e-env "FAKE_SERVER_JS")))
    :activation-fn (lsp-activate-on "typescript")
    :server-id 'fake-typescript))

  (let* ((ws (file-name-as-directory (e2e-env "WS")))
         (file (expand-file-name (e2e-env "FILE") ws))
         (other-file (expand-file-name (e2e-env "OTHER_FILE") ws))
         (edit-line (string-to-number (e2e-env "EDIT_LINE")))
         (edit-text (e2e-env "EDIT_TEXT")))
    ;; lsp-mode asks once which folder is the project; answering "i" (import) adds the suggested root,
    ;; which is what this command does
    (lsp-workspace-folders-add ws)
    (find-file file)
    (e2e-out "MODE %s" major-mode)
    (call-interactively #'lsp)
    (e2e-wait "both servers to be initialized"
              (lambda () (and (= (length (lsp-workspaces)) 2)
                              (seq-every-p (lambda (w) (eq (lsp--workspace-status w) 'initialized)) (lsp-workspaces)))))
    (e2e-out "SERVERS %s" (e2e-server-ids))
    (unless (bound-and-true-p flycheck-mode) (e2e-fail "lsp-mode did not turn on flycheck-mode"))
    (e2e-wait "the other server's diagnostic" (lambda () (e2e-error-matching "fake-typescript")))

    ;; insert a line above line EDIT_LINE; it becomes line EDIT_LINE (lsp-mode sends the change at once)
    (e2e-goto-line edit-line)
    (insert edit-text "\n")
    (e2e-wait "an out-of-scope diagnostic next to the other server's"
              (lambda () (and (e2e-error-matching "outside the scope") (e2e-error-matching "fake-typescript"))))
    (e2e-print-errors "DIAG" flycheck-current-errors)

    ;; M-x lsp-execute-code-action on the flagged line, answering its question
    (goto-char (point-min))
    (forward-line (1- (flycheck-error-line (e2e-error-matching "outside the scope"))))
    (cl-letf (((symbol-function 'completing-read) (e2e-pick (e2e-env "SELECT_TITLE"))))
      (call-interactively #'lsp-execute-code-action))
    (e2e-wait "the diagnostic to clear" (lambda () (not (e2e-error-matching "outside the scope"))))
    (e2e-out "CLEARED")
    (e2e-print-errors "REMAINING" flycheck-current-errors)

    ;; C-x C-s: one record; lsp-mode asks for the lenses again after a save
    (save-buffer)
    (e2e-out "SAVED %d" (length (e2e-wait "a record in the ledger" (lambda () (e2e-ledger-lines ws)))))
    (e2e-wait "a CodeLens on the saved line" (lambda () (assq edit-line (e2e-lenses))))
    (dolist (lens (e2e-lenses)) (e2e-out "LENS %d %s" (car lens) (cdr lens)))

    ;; M-x lsp-describe-thing-at-point on the saved line
    (e2e-goto-line edit-line)
    (call-interactively #'lsp-describe-thing-at-point)
    (let ((help (get-buffer "*lsp-help*")))
      (unless help (e2e-fail "lsp-describe-thing-at-point showed nothing"))
      (e2e-print-lines "HOVER" (with-current-buffer help (buffer-substring-no-properties (point-min) (point-max)))))

    ;; M-x intent-lsp-select, answering its question
    (let ((select-after (e2e-env "SELECT_AFTER")))
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt collection &rest _)
                   (or (seq-find (lambda (c) (string-prefix-p (concat select-after " ") c)) (all-completions "" collection))
                       (e2e-fail "intent-lsp-select did not offer %s" select-after)))))
        (call-interactively #'intent-lsp-select))
      (e2e-out "SELECTED %s" select-after))

    ;; M-x intent-lsp-blame on the saved line
    (e2e-goto-line edit-line)
    (e2e-print-lines "BLAME" (or (e2e-capture-message #'intent-lsp-blame) "<nothing>"))

    ;; another file, of no language the other server serves: M-x lsp there connects intent-lsp alone
    (find-file other-file)
    (call-interactively #'lsp)
    (e2e-wait "intent-lsp to serve the second file" (lambda () (lsp-workspaces)))
    (e2e-out "NOTES %s %s" major-mode (e2e-server-ids))

    (e2e-save-events)
    (let ((lsp-restart 'ignore))
      (dolist (w (lsp--session-workspaces (lsp-session)))
        (lsp-workspace-shutdown w)))
    (e2e-out "PASS")))

(condition-case err
    (e2e-run)
  (error (e2e-fail "%s" (error-message-string err))))
(kill-emacs 0)

;;; lsp-mode-journey.el ends here
