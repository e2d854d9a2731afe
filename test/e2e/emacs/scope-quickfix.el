;;; scope-quickfix.el --- Emacs + eglot end-to-end driver for intent-lsp  -*- lexical-binding: t; -*-

;; Run by test/e2e/emacs.test.ts as `emacs --batch -q --no-site-file -l scope-quickfix.el' (no init file,
;; no site-start; site-lisp stays on the load path, where Debian's elpa-eglot is).  Through the project's own
;; clients/emacs/intent-lsp.el: open an out-of-scope file, insert a line, wait for eglot's Flymake
;; diagnostic on exactly that line, pick "Select INT-003 …" from `eglot-code-actions' and wait for the
;; diagnostic to clear.  Prints, one per line (the test asserts on them):
;;   EMACS <version> | EGLOT <library file> | SERVER <name> <project root> | DIAG <line> <col> <end-line> <end-col> <type> <text>
;;   ACTION <title> | PICKED <title> | CLEARED | PASS   (or FAIL: <why>)
;; Lines and columns are 0-based, as in LSP.  Environment: WS, FILE (relative to WS), SERVER_JS, NODE,
;; CLIENT_DIR (clients/emacs), EDIT_LINE (0-based), EDIT_TEXT, SELECT_TITLE, TIMEOUT (seconds), EVENTS_LOG
;; (eglot's JSON-RPC events buffer is written there at the end, pass or fail).
;;
;; Batch mode runs no idle timers and no command loop, so what they do for a user is done here by hand:
;; eglot sends didChange from an idle timer (`eglot-send-changes-idle-time'), Flymake asks its backends
;; from idle and post-command hooks.  Everything else is eglot's and Flymake's own code.

;;; Code:

(defun e2e-out (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n")))

(defun e2e-env (name)
  (or (getenv name) (error "Set %s" name)))

(defvar e2e-server nil)

(defun e2e-save-events ()
  (let ((file (getenv "EVENTS_LOG")))
    (when (and file e2e-server)
      (ignore-errors
        (with-current-buffer (jsonrpc-events-buffer e2e-server)
          (write-region (point-min) (point-max) file nil 'silent))))))

(defun e2e-fail (fmt &rest args)
  (e2e-out "FAIL: %s" (apply #'format fmt args))
  (ignore-errors
    (dolist (d (flymake-diagnostics))
      (e2e-out "SEEN %s" (flymake-diagnostic-text d))))
  (e2e-save-events)
  (kill-emacs 1))

(defun e2e-wait (what pred)
  "Let the server's messages in until PRED is non-nil; fail after TIMEOUT seconds waiting for WHAT."
  (let ((deadline (+ (float-time) (string-to-number (or (getenv "TIMEOUT") "20")))))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (e2e-fail "timed out waiting for %s" what))
      (accept-process-output nil 0.05))))

(defun e2e-intent-diags ()
  (seq-filter (lambda (d) (string-prefix-p "intent-lsp" (flymake-diagnostic-text d)))
              (flymake-diagnostics)))

(defun e2e-lsp-pos (pos)
  (save-excursion
    (goto-char pos)
    (format "%d %d" (1- (line-number-at-pos pos)) (- pos (line-beginning-position)))))

(defun e2e-run ()
  (e2e-out "EMACS %s" emacs-version)
  ;; eglot from ELPA (Debian's elpa-eglot, in /usr/share/emacs/site-lisp/elpa, activated at startup), or
  ;; built in (29+)
  (require 'package)
  (unless (require 'eglot nil t)
    (package-initialize))
  (unless (require 'eglot nil t)
    (e2e-fail "eglot is not available (Emacs 28: apt-get install -y elpa-eglot; Emacs 29+ has it built in)"))
  (require 'flymake)
  (e2e-out "EGLOT %s" (locate-library "eglot"))
  (add-to-list 'load-path (e2e-env "CLIENT_DIR"))
  (require 'intent-lsp)
  (setq intent-lsp-command (list (e2e-env "NODE") (e2e-env "SERVER_JS") "--stdio"))
  (intent-lsp-setup)
  ;; wait for initialize rather than carry on and hope
  (setq eglot-sync-connect t)

  (let* ((ws (file-name-as-directory (e2e-env "WS")))
         (file (expand-file-name (e2e-env "FILE") ws))
         (edit-line (string-to-number (e2e-env "EDIT_LINE")))
         (edit-text (e2e-env "EDIT_TEXT"))
         (select-title (e2e-env "SELECT_TITLE")))
    (find-file file)
    ;; what M-x eglot does, minus the questions: the mode, project and server that eglot guesses here
    (apply #'eglot (eglot--guess-contact))
    (setq e2e-server (eglot-current-server))
    (unless e2e-server
      (e2e-fail "eglot did not start intent-lsp for %s (major mode %s)" file major-mode))
    (e2e-out "SERVER %s %s" (plist-get (eglot--server-info e2e-server) :name)
             (project-root (eglot--project e2e-server)))
    (unless flymake-mode
      (e2e-fail "eglot did not turn on flymake-mode"))
    ;; what Flymake does when the mode comes on, after the next command
    (flymake-start)

    ;; insert a line above line EDIT_LINE; it becomes line EDIT_LINE
    (goto-char (point-min))
    (forward-line edit-line)
    (insert edit-text "\n")
    ;; eglot's idle timer would send this after `eglot-send-changes-idle-time'
    (eglot--signal-textDocument/didChange)

    (e2e-wait "an out-of-scope diagnostic"
              (lambda ()
                (seq-some (lambda (d) (string-match-p "\\[out-of-scope\\]" (flymake-diagnostic-text d)))
                          (e2e-intent-diags))))
    (dolist (d (e2e-intent-diags))
      (e2e-out "DIAG %s %s %s %s" (e2e-lsp-pos (flymake-diagnostic-beg d)) (e2e-lsp-pos (flymake-diagnostic-end d))
               (flymake-diagnostic-type d)
               (replace-regexp-in-string "\n" "\\\\n" (flymake-diagnostic-text d))))

    ;; M-x eglot-code-actions on the flagged line, answering its question the way a user would
    (let* ((d (car (e2e-intent-diags)))
           (beg (flymake-diagnostic-beg d))
           (end (flymake-diagnostic-end d))
           (picked nil)
           ;; a keyboard event, not a mouse click: eglot asks with completing-read, not a popup menu
           (last-nonmenu-event ?\r))
      (goto-char beg)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt collection &rest _)
                   (dolist (item collection)
                     (e2e-out "ACTION %s" (car item)))
                   (setq picked (car (assoc select-title collection)))
                   (unless picked
                     (e2e-fail "no code action titled %S" select-title))
                   (e2e-out "PICKED %s" picked)
                   picked)))
        (eglot-code-actions beg end nil t))
      (unless picked
        (e2e-fail "eglot-code-actions did not offer a choice")))

    (e2e-wait "the diagnostic to clear" (lambda () (null (e2e-intent-diags))))
    (e2e-out "CLEARED")

    (eglot-shutdown e2e-server nil nil t) ; keep the events buffer for EVENTS_LOG
    (e2e-save-events)
    (e2e-out "PASS")))

(condition-case err
    (e2e-run)
  (error (e2e-fail "%s" (error-message-string err))))
(kill-emacs 0)

;;; scope-quickfix.el ends here
