package server

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/ailab/ai-lab/store"
)

// Gin context keys: the request's logger, and the time it has to send its body.
const (
	ctxLogger   = "ailab.logger"
	ctxBodyWait = "ailab.body_wait"
)

// requestLog gives each request an id and a logger that carries it, and logs one line
// when the request ends. It never logs bodies: they hold messages and file contents.
func (s *Server) requestLog() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader("X-Request-ID")
		if id == "" || len(id) > 64 {
			id = randomHex(8)
		}
		c.Header("X-Request-ID", id)
		log := s.log.With("request_id", id)
		c.Set(ctxLogger, log)
		start := time.Now()
		c.Next()
		log.Info("request", "method", c.Request.Method, "path", c.FullPath(), "status", c.Writer.Status(),
			"duration_ms", time.Since(start).Milliseconds())
	}
}

// logger returns the request's logger.
func (s *Server) logger(c *gin.Context) *slog.Logger {
	if l, ok := c.Get(ctxLogger); ok {
		return l.(*slog.Logger)
	}
	return s.log
}

// recover turns a panic into a 500 in the contract's shape and logs it.
func (s *Server) recover() gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if v := recover(); v != nil {
				s.fail(c, fmt.Errorf("panic: %v", v))
			}
		}()
		c.Next()
	}
}

// auth requires the bearer token in force, compared in constant time.
func (s *Server) auth() gin.HandlerFunc {
	return func(c *gin.Context) {
		want := []byte(s.CurrentToken())
		h := c.GetHeader("Authorization")
		got, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 || len(want) == 0 {
			s.fail(c, failf(ErrUnauthorized, "missing or wrong bearer token: send Authorization: Bearer <token> (the token is in the server's state_dir/token file)"))
			return
		}
		c.Next()
	}
}

// fail writes err in the contract's shape and logs its cause.
func (s *Server) fail(c *gin.Context, err error) {
	status, b := body(err)
	if advice, ok := store.DamageAdvice(err); ok {
		b.Error.Message = advice
	}
	if status >= 500 {
		log := s.logger(c).With("code", b.Error.Code, "err", err)
		if ae := (*apiError)(nil); errors.As(err, &ae) && ae.cause != nil {
			log = log.With("cause", ae.cause)
		}
		log.Error("request failed")
	} else {
		s.logger(c).Info("request refused", "code", b.Error.Code, "message", b.Error.Message)
	}
	c.AbortWithStatusJSON(status, b)
}

// bodyLimits refuses a declared body over maxBodyBytes at once (413, before a
// byte of it is read) and gives the body a read deadline, so a client that
// trickles its body cannot hold a connection and a handler forever. decode lifts
// the deadline once the body is in: a turn may run longer than that, and the
// connection must stay readable to notice a client that goes away.
func (s *Server) bodyLimits() gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.ContentLength > maxBodyBytes {
			c.Header("Connection", "close")
			s.fail(c, failf(ErrBodyTooLarge, "the request body is %d bytes, over the limit of %d; send a shorter message", c.Request.ContentLength, maxBodyBytes))
			return
		}
		c.Set(ctxBodyWait, s.bodyWait)
		_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Now().Add(s.bodyWait))
		c.Next()
	}
}

// decode reads a JSON body of at most maxBodyBytes into dst, strictly.
func decode(c *gin.Context, dst any) error {
	r := http.MaxBytesReader(c.Writer, c.Request.Body, maxBodyBytes)
	data, err := io.ReadAll(r)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return failf(ErrBodyTooLarge, "the request body is over %d bytes; send a shorter message", maxBodyBytes)
		}
		if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
			return failWith(ErrInvalidRequest, err, "the request body did not arrive within %s; send it at once", c.GetDuration(ctxBodyWait))
		}
		return failWith(ErrInvalidRequest, err, "could not read the request body")
	}
	_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Time{})
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return failWith(ErrInvalidRequest, err, "the request body is not valid JSON for this endpoint: %v", err)
	}
	if dec.More() {
		return failf(ErrInvalidRequest, "the request body holds more than one JSON value")
	}
	return nil
}

// randomHex returns n random bytes as lowercase hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b)
}

// TokenFile is the name of the token file under the state directory.
const TokenFile = "token"

// LoadOrCreateToken returns the configured token, or the one in stateDir/token,
// making a random one there (mode 0600) on first start.
func LoadOrCreateToken(configured, stateDir string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	path := filepath.Join(stateDir, TokenFile)
	if data, err := os.ReadFile(path); err == nil {
		if tok := strings.TrimSpace(string(data)); tok != "" {
			return tok, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("cannot read the token file %s: %w", path, err)
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", fmt.Errorf("cannot create the state directory %s: %w", stateDir, err)
	}
	tok := randomHex(32)
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("cannot write the token file %s: %w", path, err)
	}
	return tok, nil
}
