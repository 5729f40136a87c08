// Swagger UI for /api/docs, from the vendored bundle (no CDN). Its settings come from the page as
// JSON; "Try it out" calls go to this site with the token entered under "Authorize".
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const settings = JSON.parse(document.getElementById("swagger-settings").textContent);
  SwaggerUIBundle({...settings, dom_id: "#swagger-ui", presets: [SwaggerUIBundle.presets.apis]});
});
