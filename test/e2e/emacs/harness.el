;;; harness.el --- what the Emacs end-to-end drivers share  -*- lexical-binding: t; -*-

;; Loaded by eglot-journey.el and lsp-mode-journey.el, which run as
;;   emacs --batch -q --no-site-file -l DRIVER
;; (no init file, no site-start; the ELPA packages of the Emacs under test are activated as an installed
;; Emacs does, by `package-initialize').  Printing, environment, waiting with deadlines, reading Flymake's
;; diagnostics, and what batch mode lacks (idle timers never run, so what they do for a user is done by
;; hand and said so where it happens).

;;; Code:

;; The Emacs under test is unpacked, not installed: the native compiler it would start (for the trampolines
;; of advised primitives such as lsp-mode's) cannot find libgccjit, so everything runs as byte code.
(setq native-comp-deferred-compilation nil
      comp-enable-subr-trampolines nil)

(require 'cl-lib)
(require 'seq)
(require 'subr-x)

(defun e2e-out (fmt &rest args)
  "Print one line to stdout, where the test reads it."
  (princ (concat (apply #'format fmt args) "\n")))

(defun e2e-env (name)
  (or (getenv name) (error "Set %s" name)))

(defvar e2e-on-fail nil
  "Functions run (best effort) before a failing run exits: they print what was seen.")

(defun e2e-fail (fmt &rest args)
  (e2e-out "FAIL: %s" (apply #'format fmt args))
  (ignore-errors
    (dolist (d (flymake-diagnostics))
      (e2e-out "SEEN %s" (flymake-diagnostic-text d))))
  (dolist (f e2e-on-fail) (ignore-errors (funcall f)))
  (kill-emacs 1))

(defun e2e-timeout ()
  (string-to-number (or (getenv "TIMEOUT") "20")))

(defun e2e-wait (what pred)
  "Let the servers' messages in until PRED returns non-nil, and return it; fail after TIMEOUT seconds waiting for WHAT."
  (let ((deadline (+ (float-time) (e2e-timeout)))
        value)
    (while (not (setq value (funcall pred)))
      (when (> (float-time) deadline)
        (e2e-fail "timed out waiting for %s" what))
      (accept-process-output nil 0.05))
    value))

(defun e2e-lsp-pos (pos)
  "POS as LSP's 0-based \"line character\"."
  (save-excursion
    (goto-char pos)
    (format "%d %d" (1- (line-number-at-pos pos)) (- pos (line-beginning-position)))))

(defun e2e-diags (source)
  "Flymake's diagnostics in this buffer whose text mentions SOURCE."
  (seq-filter (lambda (d) (string-match-p (regexp-quote source) (flymake-diagnostic-text d)))
              (flymake-diagnostics)))

(defun e2e-print-diags (prefix diags)
  (dolist (d diags)
    (e2e-out "%s %s %s %s %s" prefix (e2e-lsp-pos (flymake-diagnostic-beg d)) (e2e-lsp-pos (flymake-diagnostic-end d))
             (flymake-diagnostic-type d)
             (replace-regexp-in-string "\n" "\\\\n" (flymake-diagnostic-text d)))))

(defun e2e-print-lines (prefix text)
  (dolist (line (split-string text "\n"))
    (e2e-out "%s %s" prefix line)))

(defun e2e-pick (title)
  "A `completing-read' that answers TITLE, printing every choice as ACTION <choice> and the answer as PICKED."
  (lambda (_prompt collection &rest _)
    (let* ((choices (if (functionp collection) (all-completions "" collection) (all-completions "" collection)))
           (picked (car (member title choices))))
      (dolist (choice choices) (e2e-out "ACTION %s" choice))
      (unless picked (e2e-fail "no choice titled %S" title))
      (e2e-out "PICKED %s" picked)
      picked)))

(defun e2e-goto-line (line)
  "Move to the start of 0-based LINE."
  (goto-char (point-min))
  (forward-line line))

(defun e2e-ledger-lines (ws)
  (let ((file (expand-file-name ".orchestration/agent_trace.jsonl" ws)))
    (if (file-exists-p file)
        (with-temp-buffer
          (insert-file-contents file)
          (seq-filter (lambda (l) (string-match-p "[^ \t]" l)) (split-string (buffer-string) "\n")))
      nil)))

(defun e2e-capture-message (command)
  "Run COMMAND interactively and return the last text it gave to `message'."
  (let (captured)
    (cl-letf (((symbol-function 'message)
               (lambda (fmt &rest args) (when fmt (setq captured (apply #'format fmt args))))))
      (call-interactively command))
    captured))

(defun e2e-activate-packages ()
  "ELPA packages as an installed Emacs activates them (Debian's elpa-* live in site-lisp/elpa)."
  (require 'package)
  (package-initialize))

(provide 'harness)
;;; harness.el ends here
